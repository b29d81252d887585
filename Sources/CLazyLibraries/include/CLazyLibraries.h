/* SPDX-License-Identifier: Apache-2.0 */
/* libcurl and libxml2, loaded when first used (an idle daemon maps neither).
 *
 * lazy.c defines, with hidden visibility, the few functions of libcurl and libxml2 the programs
 * call, under their own names; each opens its library with dlopen(3) on first use and forwards
 * to the real function. The binary therefore needs neither library to start, and a daemon that
 * has not yet probed a network maps neither them nor what they pull in (OpenSSL, GnuTLS,
 * Kerberos, LDAP, SSH, RTMP for libcurl: about 5 MiB of its resident memory; ICU for libxml2:
 * about 0.9 MiB). This is systemd's approach to optional libraries; the binary names both in an
 * ELF `.note.dlopen` note (https://systemd.io/ELF_DLOPEN_METADATA/) and the package depends on
 * them explicitly.
 *
 * libxml2's headers live in /usr/include/libxml2, which only pkg-config names, and SwiftPM's
 * pkgConfig would link -lxml2 too: `libxml` beside this header is a link to
 * /usr/include/libxml2/libxml, so every module that depends on this one finds them (CXML2's
 * shim included).
 *
 * When a library cannot be loaded, its functions fail as they do when out of resources (NULL,
 * CURLE_FAILED_INIT) and hh_curl_load_error() or hh_xml_load_error() says why. */
#pragma once

/* Why libcurl could not be loaded (its soname, dlerror's reason and the package to install), or
   NULL when it is loaded. */
const char *hh_curl_load_error(void);

/* Why libxml2 could not be loaded, or NULL when it is loaded. */
const char *hh_xml_load_error(void);

/* libxml2's xmlFree (a variable in libxml2, so it cannot be forwarded like the functions). */
void hh_xml_free(void *p);
