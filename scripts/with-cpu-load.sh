#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs a command while Debian's stress-ng keeps the machine's cores busy, then stops stress-ng:
#
#     scripts/with-cpu-load.sh COMMAND [ARGUMENTS]...
#
# LOAD_CPUS hogs (default: one per core, `nproc`) spin at full speed for at most LOAD_SECONDS
# (default 1800, stress-ng's own --timeout, so a hog outlives nothing by long even if this script
# is killed). The hogs run at the default priority, so they take the cores from the tests as
# much as a busy shared machine's other builds do. Exits with the command's status.
set -uo pipefail

if ! command -v stress-ng > /dev/null; then
    echo "with-cpu-load.sh: stress-ng is missing (apt-get install stress-ng, or make loaded-deps)" >&2
    exit 1
fi
cpus=${LOAD_CPUS:-$(nproc)}
seconds=${LOAD_SECONDS:-1800}
stress-ng --cpu "$cpus" --cpu-method matrixprod --timeout "${seconds}s" --quiet &
hog=$!
stop() {
    kill "$hog" 2> /dev/null
    wait "$hog" 2> /dev/null
}
trap stop EXIT
trap 'exit 130' INT TERM
# The hogs are up before the command starts.
for _ in $(seq 50); do
    running=$(pgrep -c -P "$hog" 2> /dev/null)
    [ "${running:-0}" -ge "$cpus" ] && break
    sleep 0.1
done
echo "with-cpu-load.sh: $cpus stress-ng CPU hogs running (pid $hog, at most ${seconds} s); load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$@"
status=$?
echo "with-cpu-load.sh: the command exited $status; load average $(cut -d' ' -f1-3 /proc/loadavg); stopping the hogs"
exit "$status"
