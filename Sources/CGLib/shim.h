/* SPDX-License-Identifier: Apache-2.0 */
#ifndef HOTSPOT_CGLIB_SHIM_H
#define HOTSPOT_CGLIB_SHIM_H
#include <glib.h>
#endif
