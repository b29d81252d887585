/* SPDX-License-Identifier: Apache-2.0 */
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

/* pipe2 with O_CLOEXEC, for the test kit's child processes (declared here for the same reason). */
int pipe2(int pipefd[2], int flags);
static inline int hotspot_pipe_cloexec(int fds[2]) {
    return pipe2(fds, 02000000 /* O_CLOEXEC */);
}

/* The test kit's children must not inherit this process's other descriptors (a script being
 * written would stay "text file busy" while a long-lived child holds it open). glibc >= 2.34. */
#include <spawn.h>
int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
static inline int hotspot_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}
#endif
