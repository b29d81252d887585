/* SPDX-License-Identifier: Apache-2.0 */
/* libcurl, loaded when first used (issue 12: an idle daemon does not map it).
 *
 * lazy.c defines, with hidden visibility, the few functions of libcurl the programs call, under
 * their own names; each opens libcurl with dlopen(3) on first use and forwards to the real
 * function. The binary therefore does not need libcurl.so.4 to start, and a daemon that has not
 * yet probed a network maps neither it nor what it pulls in (OpenSSL, GnuTLS, Kerberos, LDAP,
 * SSH, RTMP: about 5 MiB of its resident memory). This is systemd's approach to optional
 * libraries; the binary names libcurl in an ELF `.note.dlopen` note
 * (https://systemd.io/ELF_DLOPEN_METADATA/) and the package depends on it explicitly.
 *
 * libxml2 stays linked: its headers need pkg-config's include path, and SwiftPM's pkgConfig
 * always adds -lxml2 too (docs/PACKAGING.md).
 *
 * When libcurl cannot be loaded, its functions fail as they do when out of resources (NULL,
 * CURLE_FAILED_INIT) and hh_curl_load_error() says why. */
#pragma once

/* Why libcurl could not be loaded (its soname, dlerror's reason and the package to install), or
   NULL when it is loaded. */
const char *hh_curl_load_error(void);
