#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs the steps of a make target one after another, times each, and prints a table of the steps'
# times and results at the end, also when a step fails (a CI log is read from its tail).
#
#     scripts/timed-steps.sh TITLE  NAME COMMAND  [NAME COMMAND]...
#
# COMMAND is run by bash (`bash -c`). A NAME that starts with '!' is a step the later ones need
# (the build): when it fails, the steps after it are not run and are listed as skipped. A step
# that fails otherwise does not stop the steps after it (the lab still runs when a Swift test
# failed), and the script exits 1 when any step failed.
# A NAME that starts with '&' (before any '!') runs in the background beside the next step; once
# that step has ended, the script waits for it and prints its output (kept in .build/step-N.log
# meanwhile, so the two do not interleave). Two cores do a build and the tests side by side
# sooner than one after the other: the tests wait on processes and the bus much of the time.
# A NAME that starts with '@' starts in the background and runs beside every step after it until
# the end (the Debian roots, which need the network and the disk more than the CPU; the release
# build beside the debug build). A step that needs one's product waits for it itself (make test's
# Swift tests take the release build's lock).
# A NAME that starts with '@>' is an '@' step that starts once the '@' step before it has ended,
# and only if that one passed (else it is listed as skipped): work that needs the other's product
# (the lab needs the release build) starts the moment it exists, beside whatever runs then.
# The table is also written to $STEP_TIMES (default .build/step-times.txt).
set -uo pipefail
cd "$(dirname "$0")/.."

title=$1
shift
if [ $(( $# % 2 )) -ne 0 ] || [ $# -eq 0 ]; then
    echo "usage: scripts/timed-steps.sh TITLE NAME COMMAND [NAME COMMAND]..." >&2
    exit 2
fi

names=() results=() times=()
failed=0 stopped=""
background=()  # indexes of the steps running in the background
started_all=$(date +%s)
mkdir -p .build
# Left from an earlier run, a step's end would let a step waiting for it ('@>') start at once.
rm -f .build/step-*.cpu .build/step-*.end .build/step-*.status .build/step-*.start .build/step-*.skipped

fmt() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

# Records step $1's end: status $2, seconds $3, whether later steps need it $4.
finish() {
    times[$1]=$(fmt "$3")
    if [ "$2" -eq 0 ]; then
        results[$1]="passed"
    else
        results[$1]="FAILED (exit $2)"
        failed=1
        [ "$4" -eq 1 ] && [ -z "$stopped" ] && stopped=${names[$1]}
    fi
}

# Waits for the steps in the background (those named by $1: background or long) and prints
# their output.
join() {
    local j status list=${1:-background}
    local -n steps=$list
    for j in "${steps[@]}"; do
        wait "${pids[$j]}"
        status=$?
        echo
        echo "==== $title: ${names[$j]} (ran beside the step before; its output:)"
        cat ".build/step-$j.log"
        [ -e ".build/step-$j.start" ] && starts[$j]=$(cat ".build/step-$j.start")
        if [ -e ".build/step-$j.skipped" ]; then
            results[$j]="skipped ($(cat ".build/step-$j.skipped") failed)" times[$j]="-"
            continue
        fi
        finish "$j" "$status" "$(( $(cat ".build/step-$j.end") - starts[$j] ))" "${needs[$j]}"
    done
    steps=()
}
# Writes the CPU time (user + system, seconds) of the current shell's finished children to
# .build/step-$1.cpu: with the wall time it says which steps use the cores and which wait.
cpu_of() {
    times > ".build/step-$1.cpu"  # not in a pipe: a pipe's subshell has no children of its own
    tail -1 ".build/step-$1.cpu" | awk '{ t = 0; for (i = 1; i <= 2; i++) { split($i, p, "m"); sub("s", "", p[2]); t += p[1] * 60 + p[2] } printf "%d\n", t }' > ".build/step-$1.cpu.tmp"
    mv ".build/step-$1.cpu.tmp" ".build/step-$1.cpu"
}
long=()  # indexes of the '@' steps not waited for yet

declare -A pids starts needs
i=0
while [ $# -gt 0 ]; do
    name=$1 command=$2
    shift 2
    beside=0 needed=0
    after=""
    case "$name" in '&'*) beside=1; name=${name#&} ;; '@'*) beside=2; name=${name#@} ;; esac
    if [ "$beside" -eq 2 ]; then
        case "$name" in '>'*) after=${long[-1]:-}; name=${name#>} ;; esac
    fi
    case "$name" in '!'*) needed=1; name=${name#!} ;; esac
    names[$i]=$name needs[$i]=$needed
    if [ -n "$stopped" ]; then
        results[$i]="skipped (${stopped} failed)" times[$i]="-"
        i=$((i + 1))
        continue
    fi
    echo
    echo "==== $title: $name"
    echo "     $command"
    starts[$i]=$(date +%s)
    if [ "$beside" -ne 0 ]; then
        if [ "$beside" -eq 1 ]; then
            echo "     (in the background beside the next step; output in .build/step-$i.log)"
        else
            echo "     (in the background beside the steps after it; output in .build/step-$i.log)"
        fi
        [ -n "$after" ] && echo "     (once '${names[$after]}' has passed)"
        (
            if [ -n "$after" ]; then
                while [ ! -e ".build/step-$after.end" ]; do sleep 1; done
                if [ "$(cat ".build/step-$after.status")" != 0 ]; then
                    echo "${names[$after]}" > ".build/step-$i.skipped"
                    : > ".build/step-$i.log"
                    exit 0
                fi
                date +%s > ".build/step-$i.start"
            fi
            bash -c "$command" > ".build/step-$i.log" 2>&1
            status=$?
            echo "$status" > ".build/step-$i.status"
            date +%s > ".build/step-$i.end"
            cpu_of "$i"
            exit $status
        ) &
        pids[$i]=$!
        if [ "$beside" -eq 1 ]; then background+=("$i"); else long+=("$i"); fi
        i=$((i + 1))
        continue
    fi
    ( bash -c "$command"; status=$?; cpu_of "$i"; exit $status )
    status=$?
    finish "$i" "$status" "$(( $(date +%s) - starts[$i] ))" "$needed"
    join
    i=$((i + 1))
done
join
join long
total=$(( $(date +%s) - started_all ))

table=$(
    echo "==== $title: $(fmt "$total") in all, on $(nproc) cores (load average at the end: $(cut -d' ' -f1-3 /proc/loadavg))"
    for i in "${!names[@]}"; do
        cpu=-
        [ -s ".build/step-$i.cpu" ] && cpu=$(fmt "$(cat ".build/step-$i.cpu")")
        printf '  %-44s %8s  %8s CPU  %s\n' "${names[$i]}" "${times[$i]}" "$cpu" "${results[$i]}"
    done
)
echo
echo "$table"
out=${STEP_TIMES:-.build/step-times.txt}
mkdir -p "$(dirname "$out")" && echo "$table" > "$out"
exit "$failed"
