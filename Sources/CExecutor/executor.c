// SPDX-License-Identifier: Apache-2.0
#define _GNU_SOURCE  // pthread_setname_np
#include "CExecutor.h"
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

struct node { void *job; struct node *next; };
struct timer { long long at; void *job; };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work_ready;   // CLOCK_MONOTONIC
static pthread_cond_t timer_ready;  // CLOCK_MONOTONIC
static struct node *head, *tail, *spare;  // spare: freed nodes kept for reuse
static struct timer *heap;
static int heap_count, heap_capacity, worker_count;
static void (*runner)(void *);

long long hh_executor_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

// With the lock held.
static void push(void *job) {
    struct node *n = spare;
    if (n) spare = n->next; else n = malloc(sizeof *n);
    if (!n) abort();  // as the runtime does when it cannot allocate a job
    n->job = job;
    n->next = NULL;
    if (tail) tail->next = n; else head = n;
    tail = n;
    pthread_cond_signal(&work_ready);
}

void hh_executor_enqueue(void *job) {
    pthread_mutex_lock(&lock);
    push(job);
    pthread_mutex_unlock(&lock);
}

static void *work(void *unused) {
    (void)unused;
    pthread_setname_np(pthread_self(), "hh-worker");  // for ps, top, perf and the tests
    for (;;) {
        pthread_mutex_lock(&lock);
        while (!head) pthread_cond_wait(&work_ready, &lock);
        struct node *n = head;
        head = n->next;
        if (!head) tail = NULL;
        void *job = n->job;
        n->next = spare;
        spare = n;
        pthread_mutex_unlock(&lock);
        runner(job);
    }
    return NULL;
}

void hh_executor_enqueue_at(long long at, void *job) {
    pthread_mutex_lock(&lock);
    if (heap_count == heap_capacity) {
        int capacity = heap_capacity ? heap_capacity * 2 : 32;
        struct timer *grown = realloc(heap, (size_t)capacity * sizeof *heap);
        if (!grown) abort();
        heap = grown;
        heap_capacity = capacity;
    }
    int i = heap_count++;
    while (i > 0 && heap[(i - 1) / 2].at > at) {
        heap[i] = heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    heap[i].at = at;
    heap[i].job = job;
    if (i == 0) pthread_cond_signal(&timer_ready);  // a new earliest deadline
    pthread_mutex_unlock(&lock);
}

static void *time_out(void *unused) {
    (void)unused;
    pthread_setname_np(pthread_self(), "hh-timer");
    pthread_mutex_lock(&lock);
    for (;;) {
        if (heap_count == 0) {
            pthread_cond_wait(&timer_ready, &lock);
            continue;
        }
        long long at = heap[0].at;
        if (at > hh_executor_now()) {
            struct timespec deadline = { at / 1000000000LL, at % 1000000000LL };
            pthread_cond_timedwait(&timer_ready, &lock, &deadline);
            continue;
        }
        void *job = heap[0].job;
        struct timer last = heap[--heap_count];
        int i = 0;
        for (;;) {
            int child = 2 * i + 1;
            if (child >= heap_count) break;
            if (child + 1 < heap_count && heap[child + 1].at < heap[child].at) child++;
            if (heap[child].at >= last.at) break;
            heap[i] = heap[child];
            i = child;
        }
        if (heap_count) heap[i] = last;
        push(job);
    }
    return NULL;
}

static int spawn(void *(*body)(void *)) {
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    // glibc's default stack (8 MiB, only touched as used): jobs run libxml2 and GLib parsers.
    pthread_attr_setstacksize(&attributes, 8 * 1024 * 1024);
    pthread_t thread;
    int rc = pthread_create(&thread, &attributes, body, NULL);
    pthread_attr_destroy(&attributes);
    return rc;
}

int hh_executor_start(int workers, void (*run)(void *)) {
    runner = run;
    pthread_condattr_t monotonic;
    pthread_condattr_init(&monotonic);
    pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC);
    pthread_cond_init(&work_ready, &monotonic);
    pthread_cond_init(&timer_ready, &monotonic);
    pthread_condattr_destroy(&monotonic);
    int rc = spawn(time_out);
    if (rc) return rc;
    for (int i = 0; i < workers; i++) {
        if ((rc = spawn(work))) break;
        worker_count++;
    }
    return worker_count ? 0 : rc;
}
