#ifndef HOTSPOT_CDBUS_SHIM_H
#define HOTSPOT_CDBUS_SHIM_H
#include <dbus/dbus.h>
#include <pthread.h>

/* Names the calling thread (the connection's bus thread) for ps, top and perf. Glibc declares
 * pthread_setname_np only under _GNU_SOURCE, which Swift's Glibc module does not set. */
int pthread_setname_np(pthread_t thread, const char *name);
static inline int hotspot_name_current_thread(const char *name) {
    return pthread_setname_np(pthread_self(), name);
}
#endif
