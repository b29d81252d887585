#ifndef HOTSPOT_CDBUS_SHIM_H
#define HOTSPOT_CDBUS_SHIM_H
#include <dbus/dbus.h>
#endif
