/* SPDX-License-Identifier: Apache-2.0 */
#ifndef HOTSPOT_CARES_SHIM_H
#define HOTSPOT_CARES_SHIM_H
#include <ares.h>

/* ARES_GETSOCK_READABLE/WRITABLE are function-like macros, which Swift cannot import. */
static inline int hotspot_ares_readable(int bits, int i) { return ARES_GETSOCK_READABLE(bits, i); }
static inline int hotspot_ares_writable(int bits, int i) { return ARES_GETSOCK_WRITABLE(bits, i); }
#endif
