// SPDX-License-Identifier: Apache-2.0
// The threads behind the programs' global executor (ProgramSupport/GlobalExecutor.swift): a few
// workers waiting on a condition variable for jobs, and one timer thread waiting for the earliest
// deadline. Nothing here wakes up without work, unlike libdispatch's pool, whose monitor ticks
// every second for as long as the process lives (wake-ups while idle).
#pragma once

/// Starts `workers` worker threads (each calls `run(job)` for the jobs it takes, in FIFO order)
/// and the timer thread. Returns 0, or an errno value when a thread could not be made.
int hh_executor_start(int workers, void (*run)(void *job));

/// Queues `job` for the next free worker.
void hh_executor_enqueue(void *job);

/// Queues `job` once CLOCK_MONOTONIC reaches `deadline` (nanoseconds).
void hh_executor_enqueue_at(long long deadline, void *job);

/// CLOCK_MONOTONIC now, in nanoseconds.
long long hh_executor_now(void);

/// Hands every job enqueued from now on (timers included) to `enqueue(context, job)` instead of
/// the workers: an event loop that runs them on its own thread with ``hh_executor_run``, so a
/// daemon's bus I/O and its tasks share one thread and a message needs no hand-off between
/// threads. Jobs already queued still run on the workers. `enqueue` NULL gives the jobs back to
/// the workers. Returns 0, or -1 when the workers were never started (another executor is in use)
/// or another loop already hosts the jobs.
int hh_executor_set_host(void (*enqueue)(void *context, void *job), void *context);

/// Runs one job handed to a host (see ``hh_executor_set_host``), on the calling thread.
void hh_executor_run(void *job);

/// Queues `job` for the workers even while a host is set: how a host that has ended gives back
/// a job that was already on its way to it.
void hh_executor_enqueue_on_workers(void *job);

