#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs the Swift test suite (`swift test --skip-build`, extra arguments passed on) and, when it
# fails, repeats what failed at the end of the output: a CI log is often read from its tail, and
# the suite's 500-odd tests print thousands of lines above the one that matters.
# The whole output is kept in $SWIFT_TEST_LOG (default .build/swift-test.log).
set -uo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
log=${SWIFT_TEST_LOG:-.build/swift-test.log}
mkdir -p "$(dirname "$log")"
# At most this many tests at once (Swift Testing otherwise starts all 500 together). Unbounded,
# the first seconds of a run start about 115 dbus-daemons and 70 python-dbusmock processes on a
# two-core machine, and tests whose HTTP timeouts are a few seconds fail for want of a CPU (a CI
# run did). Eight takes as long in all (about 80 s): the run's length is its longest tests.
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-8}

# $SWIFT unquoted: it may be a command with arguments, as make's $(SWIFT) may.
$SWIFT test --skip-build "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
    echo
    echo "==== swift test failed (exit $status). What failed, repeated from above (whole log: $log):"
    # Swift Testing marks a failed test and each recorded issue with ✘; XCTest says "error:" and
    # "failed"; a Swift crash says "Fatal error". A run that ends with none of them has its last
    # lines printed instead.
    failed=$(grep -E '^✘|: error: |Test Case .* failed|Fatal error' "$log" | grep -v '✘ Test run with' || true)
    if [ -n "$failed" ]; then
        printf '%s\n' "$failed" | head -n 60
    else
        echo "(no failed test named: the run ended early; its last 30 lines:)"
        tail -n 30 "$log"
    fi
    # Which test was still running when the run ended, if one was (started, never finished).
    started=$(grep -oE '◇ Test [^ ]+\(' "$log" | sed 's/◇ Test //' | sort -u)
    finished=$(grep -oE '(✔|✘) Test [^ ]+\(' "$log" | sed -E 's/(✔|✘) Test //' | sort -u)
    unfinished=$(comm -23 <(echo "$started") <(echo "$finished"))
    if [ -n "$unfinished" ]; then
        echo "Started and never finished:"
        echo "$unfinished" | sed 's/($/()/; s/^/  /'
    fi
fi
exit "$status"
