#!/usr/bin/env bash
# Runs every libFuzzer harness of tests/fuzz/ for a fixed budget on its seed corpus
# (tests/fuzz/corpus/<name>/, left unchanged: new inputs go to a scratch corpus), with ASan
# and UBSan (float-cast-overflow included) watching. A crash, a sanitizer report, a leak, a
# timeout or an undocumented exception stops the harness and leaves the input that caused
# it under OUT/<harness>/ (reproduce: build/fuzz/tests/fuzz/<harness> FILE).
#
# Usage: scripts/fuzz.sh [SECONDS_PER_HARNESS] [OUT]     (defaults 30 and out/fuzz)
# Builds the `fuzz` preset (clang) first. Exit status: 0 when every harness ran its budget
# clean, 1 when one found something, 2 on bad usage.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
budget=${1:-30}
out=${2:-$root/out/fuzz}
if ! [[ $budget =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz.sh: SECONDS_PER_HARNESS '$budget' is not a positive integer" >&2
  exit 2
fi
harnesses=(fuzz_historical fuzz_dataset fuzz_model_json fuzz_train fuzz_workload fuzz_context fuzz_costs)

cd "$root"
scripts/setup.sh
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j"$(nproc)" --target "${harnesses[@]}" >/dev/null

status=0
for h in "${harnesses[@]}"; do
  seeds=tests/fuzz/corpus/${h#fuzz_}
  work=$(mktemp -d)
  mkdir -p "$out/$h"
  echo "fuzz.sh: $h for ${budget} s (seeds: $seeds)" >&2
  if ! "build/fuzz/tests/fuzz/$h" -max_total_time="$budget" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
      -print_final_stats=1 -artifact_prefix="$out/$h/" "$work" "$seeds" 2>"$out/$h/log.txt"; then
    echo "fuzz.sh: $h FOUND SOMETHING: $out/$h/log.txt and the input beside it" >&2
    status=1
  fi
  grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb" "$out/$h/log.txt" | tr '\n' ' ' >&2 || true
  echo >&2
  rm -rf "$work"
done
exit $status
