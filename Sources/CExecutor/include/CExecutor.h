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
