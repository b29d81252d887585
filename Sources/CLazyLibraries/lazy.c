// SPDX-License-Identifier: Apache-2.0
// See include/CLazyLibraries.h. Every definition below has the prototype libcurl's own header
// declares (the header is included, so the compiler checks it) and hidden visibility, so
// libcurl never binds to these instead of its own functions. The C library's headers come first,
// so only libcurl's declarations fall under the pragma.
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
#pragma GCC visibility pop
#include "CLazyLibraries.h"

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static void *curl_handle;
static char curl_error[512];

static void open_curl(void) {
    curl_handle = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!curl_handle) {
        const char *why = dlerror();
        snprintf(curl_error, sizeof curl_error, "libcurl.so.4 could not be loaded (%s); install the libcurl4 package",
                 why ? why : "no reason given");
    }
}

static void *curl_symbol(const char *name) {
    pthread_once(&curl_once, open_curl);
    return curl_handle ? dlsym(curl_handle, name) : NULL;
}

const char *hh_curl_load_error(void) {
    pthread_once(&curl_once, open_curl);
    return curl_error[0] ? curl_error : NULL;
}

// Each forwarder looks its function up once (a data race on the cached pointer would only look
// it up again: the pointer is written whole, with the same value).
#define FORWARD(ret, name, failed, params, args)                              \
    ret name params {                                                         \
        static ret (*volatile real) params;                                   \
        if (!real) real = (ret(*) params)curl_symbol(#name);                  \
        if (!real) return failed;                                             \
        return real args;                                                     \
    }
#define FORWARD_VOID(name, params, args)                                      \
    void name params {                                                        \
        static void (*volatile real) params;                                  \
        if (!real) real = (void(*) params)curl_symbol(#name);                 \
        if (real) real args;                                                  \
    }

FORWARD(CURLcode, curl_global_init, CURLE_FAILED_INIT, (long flags), (flags))
FORWARD(CURL *, curl_easy_init, NULL, (void), ())
FORWARD_VOID(curl_easy_cleanup, (CURL *h), (h))
FORWARD(CURLcode, curl_easy_perform, CURLE_FAILED_INIT, (CURL *h), (h))
FORWARD(const char *, curl_easy_strerror, "libcurl could not be loaded", (CURLcode code), (code))
FORWARD(struct curl_slist *, curl_slist_append, NULL, (struct curl_slist *list, const char *s), (list, s))
FORWARD_VOID(curl_slist_free_all, (struct curl_slist *list), (list))
FORWARD_VOID(curl_free, (void *p), (p))
FORWARD(CURLU *, curl_url, NULL, (void), ())
FORWARD_VOID(curl_url_cleanup, (CURLU *u), (u))
FORWARD(CURLUcode, curl_url_set, CURLUE_OUT_OF_MEMORY, (CURLU *u, CURLUPart what, const char *part, unsigned int flags),
        (u, what, part, flags))
FORWARD(CURLUcode, curl_url_get, CURLUE_OUT_OF_MEMORY, (CURLU *u, CURLUPart what, char **part, unsigned int flags),
        (u, what, part, flags))

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
    "[{\"feature\":\"http\",\"description\":\"connectivity checks, WISPr and portal sign-in\",\"priority\":\"required\",\"soname\":[\"libcurl.so.4\"]}]"
// n_descsz is the JSON's size with its NUL; the descriptor is padded to 4 bytes after it.
__attribute__((used, section(".note.dlopen"), aligned(4))) static const struct {
    uint32_t name_size, description_size, type;
    char name[4];
    char description[(sizeof(DLOPEN_NOTE_JSON) + 3) & ~3];
} dlopen_note = {4, sizeof(DLOPEN_NOTE_JSON), 0x407c0c0a, "FDO", DLOPEN_NOTE_JSON};
