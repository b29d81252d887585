/* SPDX-License-Identifier: Apache-2.0 */
#ifndef HOTSPOT_CXML2_SHIM_H
#define HOTSPOT_CXML2_SHIM_H
/* libxml2's HTML parser (Debian's libxml2-dev), used to read portal sign-in forms. */
/* Debian builds libxml2 with ICU, so <libxml/encoding.h> includes ICU's headers, which clash with
   the copy the Swift toolchain's Foundation carries. Nothing here touches the one struct whose
   layout depends on it (xmlCharEncodingHandler's ICU converters: only pointers to it are
   passed around), so the ICU part of the headers is switched off for this module. */
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/HTMLparser.h>
#include <libxml/tree.h>
#include <libxml/parser.h>

/* The options every portal page is parsed with: recover from broken HTML, no error or warning
   output, never fetch anything from the network, no implied <html>/<body> quirks beyond HTML's. */
static inline int hotspot_html_options(void) {
    return HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET;
}
#endif
