// SPDX-License-Identifier: Apache-2.0
// See include/CLazyLibraries.h. Every definition below has the prototype the library's own header
// declares (the header is included, so the compiler checks it) and hidden visibility, so the
// library never binds to these instead of its own functions. The C library's headers come first,
// so only the libraries' declarations fall under the pragma.
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/types.h>
#include <time.h>
#pragma GCC visibility push(hidden)
// curl.h may turn curl_easy_setopt and curl_easy_getinfo into type-checking macros (its
// typecheck-gcc.h); the forwarders below define those names, so the macros are kept out.
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>
// As in CXML2's shim: Debian's libxml2 headers include ICU's when it is enabled; nothing here
// needs them.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#pragma GCC visibility pop
#include "CLazyLibraries.h"

/// A library opened on first use: the sonames it is known by, newest ABI first; the packages that
/// ship it; and why it failed. libxml2 2.14 changed its soname to libxml2.so.16 (Debian forky's
/// `libxml2-16`, Ubuntu 26.04's likewise); Debian 12 and 13 ship libxml2.so.2. The few functions
/// and the node and attribute structures the programs use (below; HTMLFormReader.swift) are the
/// same in both, so the binary takes whichever the system has (docs/PACKAGING.md, "libxml2's two
/// sonames").
struct lazy_library {
    const char *sonames[3], *packages;
    pthread_once_t once;
    void *handle;
    char error[512];
};

static struct lazy_library curl = {{"libcurl.so.4", NULL, NULL}, "libcurl4t64 (or libcurl4)", PTHREAD_ONCE_INIT, NULL, ""};
static struct lazy_library xml2 = {{"libxml2.so.16", "libxml2.so.2", NULL}, "libxml2-16 (or libxml2)", PTHREAD_ONCE_INIT, NULL, ""};

static void open_library(struct lazy_library *l) {
    /* The first (newest) soname's reason: the others usually say the same. Copied at once, since
       glibc frees dlerror()'s string at the next dlopen. */
    char why[256] = "";
    for (int i = 0; l->sonames[i] && !l->handle; i++) {
        l->handle = dlopen(l->sonames[i], RTLD_NOW | RTLD_LOCAL);
        const char *e = l->handle ? NULL : dlerror();
        if (e && !why[0])
            snprintf(why, sizeof why, "%s", e);
    }
    if (!l->handle) {
        char names[128] = "";
        for (int i = 0; l->sonames[i]; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? " or " : "", l->sonames[i]);
        snprintf(l->error, sizeof l->error, "%s could not be loaded (%s); install the %s package", names,
                 why[0] ? why : "no reason given", l->packages);
    }
}
static void open_curl(void) { open_library(&curl); }
static void open_xml2(void) { open_library(&xml2); }

static void *curl_symbol(const char *name) {
    pthread_once(&curl.once, open_curl);
    return curl.handle ? dlsym(curl.handle, name) : NULL;
}
static void *xml2_symbol(const char *name) {
    pthread_once(&xml2.once, open_xml2);
    return xml2.handle ? dlsym(xml2.handle, name) : NULL;
}

const char *hh_curl_load_error(void) {
    pthread_once(&curl.once, open_curl);
    return curl.error[0] ? curl.error : NULL;
}
const char *hh_xml_load_error(void) {
    pthread_once(&xml2.once, open_xml2);
    return xml2.error[0] ? xml2.error : NULL;
}

// Each forwarder looks its function up once (a data race on the cached pointer would only look
// it up again: the pointer is written whole, with the same value).
#define FORWARD(lookup, ret, name, failed, params, args)                      \
    ret name params {                                                         \
        static ret (*volatile real) params;                                   \
        if (!real) real = (ret(*) params)lookup(#name);                       \
        if (!real) return failed;                                             \
        return real args;                                                     \
    }
#define FORWARD_VOID(lookup, name, params, args)                              \
    void name params {                                                        \
        static void (*volatile real) params;                                  \
        if (!real) real = (void(*) params)lookup(#name);                      \
        if (real) real args;                                                  \
    }

FORWARD(curl_symbol, CURLcode, curl_global_init, CURLE_FAILED_INIT, (long flags), (flags))
FORWARD(curl_symbol, CURL *, curl_easy_init, NULL, (void), ())
FORWARD_VOID(curl_symbol, curl_easy_cleanup, (CURL *h), (h))
FORWARD(curl_symbol, CURLcode, curl_easy_perform, CURLE_FAILED_INIT, (CURL *h), (h))
FORWARD(curl_symbol, const char *, curl_easy_strerror, "libcurl could not be loaded", (CURLcode code), (code))
FORWARD(curl_symbol, struct curl_slist *, curl_slist_append, NULL, (struct curl_slist *list, const char *s), (list, s))
FORWARD_VOID(curl_symbol, curl_slist_free_all, (struct curl_slist *list), (list))
FORWARD_VOID(curl_symbol, curl_free, (void *p), (p))
FORWARD(curl_symbol, CURLU *, curl_url, NULL, (void), ())
FORWARD_VOID(curl_symbol, curl_url_cleanup, (CURLU *u), (u))
FORWARD(curl_symbol, CURLUcode, curl_url_set, CURLUE_OUT_OF_MEMORY, (CURLU *u, CURLUPart what, const char *part, unsigned int flags),
        (u, what, part, flags))
FORWARD(curl_symbol, CURLUcode, curl_url_get, CURLUE_OUT_OF_MEMORY, (CURLU *u, CURLUPart what, char **part, unsigned int flags),
        (u, what, part, flags))

// libxml2's HTML parser and tree accessors (Sources/BuiltInHelpers/HTMLFormReader.swift). When
// libxml2 cannot be loaded, htmlReadMemory returns NULL as it does for an unreadable page.
FORWARD(xml2_symbol, htmlDocPtr, htmlReadMemory, NULL,
        (const char *buffer, int size, const char *url, const char *encoding, int options),
        (buffer, size, url, encoding, options))
FORWARD_VOID(xml2_symbol, xmlFreeDoc, (xmlDocPtr doc), (doc))
FORWARD(xml2_symbol, xmlNodePtr, xmlDocGetRootElement, NULL, (const xmlDoc *doc), (doc))
FORWARD(xml2_symbol, xmlAttrPtr, xmlHasProp, NULL, (const xmlNode *node, const xmlChar *name), (node, name))
FORWARD(xml2_symbol, xmlChar *, xmlGetProp, NULL, (const xmlNode *node, const xmlChar *name), (node, name))
FORWARD(xml2_symbol, xmlChar *, xmlNodeGetContent, NULL, (const xmlNode *node), (node))

// xmlFree is a variable (libxml2's configurable deallocator), not a function.
void hh_xml_free(void *p) {
    static xmlFreeFunc *volatile slot;
    if (!slot) slot = (xmlFreeFunc *)xml2_symbol("xmlFree");
    if (slot && *slot) (*slot)(p);
}

// curl_easy_setopt and curl_easy_getinfo are variadic with exactly one argument after the
// option. Every argument the programs pass (long, curl_off_t, a pointer, a function pointer) is
// one 64-bit integer-class value, which the LP64 calling conventions of Linux pass in the same
// register whether the callee is variadic or not; it is read as such and passed on unchanged.
_Static_assert(sizeof(long) == sizeof(void *) && sizeof(curl_off_t) == sizeof(void *), "an LP64 platform");
#define FORWARD_ONE_VARIADIC(name, selector)                                   \
    CURLcode name(CURL *h, selector which, ...) {                              \
        static CURLcode (*volatile real)(CURL *, selector, ...);               \
        if (!real) real = (CURLcode(*)(CURL *, selector, ...))curl_symbol(#name); \
        if (!real) return CURLE_FAILED_INIT;                                   \
        va_list ap;                                                            \
        va_start(ap, which);                                                   \
        intptr_t value = va_arg(ap, intptr_t);                                 \
        va_end(ap);                                                            \
        return real(h, which, value);                                          \
    }
FORWARD_ONE_VARIADIC(curl_easy_setopt, CURLoption)
FORWARD_ONE_VARIADIC(curl_easy_getinfo, CURLINFO)

// The ELF dlopen note (https://systemd.io/ELF_DLOPEN_METADATA/): which libraries this binary
// opens at run time, for packaging tools that read dependencies from the binary.
#define DLOPEN_NOTE_JSON \
    "[{\"feature\":\"http\",\"description\":\"connectivity checks, WISPr and portal sign-in\",\"priority\":\"required\",\"soname\":[\"libcurl.so.4\"]}," \
    "{\"feature\":\"html\",\"description\":\"reading portal sign-in forms\",\"priority\":\"required\",\"soname\":[\"libxml2.so.16\",\"libxml2.so.2\"]}]"
// n_descsz is the JSON's size with its NUL; the descriptor is padded to 4 bytes after it.
__attribute__((used, section(".note.dlopen"), aligned(4))) static const struct {
    uint32_t name_size, description_size, type;
    char name[4];
    char description[(sizeof(DLOPEN_NOTE_JSON) + 3) & ~3];
} dlopen_note = {4, sizeof(DLOPEN_NOTE_JSON), 0x407c0c0a, "FDO", DLOPEN_NOTE_JSON};
