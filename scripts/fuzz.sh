#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Coverage-guided fuzzing with libFuzzer: builds hotspot-fuzz with -sanitize=fuzzer,address into
# .build-fuzz and runs every target (or those named) for FUZZ_SECONDS each. The working corpus
# grows in .fuzz-corpus/<target> (seeded from Fuzz/Corpus/<target>); a crashing input is
# written to fuzz-crashes/ — commit it under Fuzz/Corpus/<target>/ to keep it as a
# regression test (FuzzRegressionTests runs every committed input). Leak detection is off:
# LeakSanitizer reports the one-time allocations of Swift's lazily initialised globals on their
# first use as leaks of whatever input ran first.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-60}
targets=("$@")
swift build --product hotspot-fuzz
if [ ${#targets[@]} -eq 0 ]; then
  # Every target the driver has, from its own list, so a new one is never left out.
  mapfile -t targets < <(.build/debug/hotspot-fuzz --help | sed -n 's/.*Targets: \(.*\)\./\1/p' | tr ',' '\n' | tr -d ' ')
fi
.build/debug/hotspot-fuzz --write-seeds .fuzz-corpus >/dev/null
swift build --scratch-path .build-fuzz --product hotspot-fuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -DLIBFUZZER
mkdir -p fuzz-crashes
status=0
for t in "${targets[@]}"; do
  mkdir -p ".fuzz-corpus/$t"
  [ -d "Fuzz/Corpus/$t" ] && cp -n "Fuzz/Corpus/$t"/* ".fuzz-corpus/$t/" 2>/dev/null || true
  echo "== $t: ${seconds} s"
  if ! ASAN_OPTIONS=detect_leaks=0 FUZZ_TARGET="$t" .build-fuzz/debug/hotspot-fuzz -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -detect_leaks=0 \
      -artifact_prefix="fuzz-crashes/$t-" -print_final_stats=1 ".fuzz-corpus/$t" 2>&1 \
      | grep -E "^(#[0-9]+ +DONE|Done|stat::number_of_executed_units|stat::peak_rss_mb|==[0-9]+==ERROR|SUMMARY|artifact_prefix|Test unit written)"; then
    :
  fi
  if ls fuzz-crashes/"$t"-* >/dev/null 2>&1; then status=1; echo "!! $t: crashing inputs in fuzz-crashes/"; fi
done
exit $status
