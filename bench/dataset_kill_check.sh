#!/usr/bin/env bash
# Does a killed calibration leave the previous dataset or the new one? Calibrates once into
# a scratch directory, then N times more into it with --force, each run sent SIGKILL at a
# moment spread over the last fifth of a run's wall time (where the dataset is written),
# and reads the directory after each kill (`pollscale compare D D`: every file checked
# against files.json). Prints how many kills left a readable dataset, how many a refused
# one, how many the new one, and how many hidden directories (the old contents of a write
# killed between its swap and its clean-up, docs/datasets.md) are left beside it.
#
# Usage: bench/dataset_kill_check.sh [N]      (default 60; POLLSCALE=PATH names the binary)
# Exit status: 0 when every kill left a readable dataset, 1 otherwise, 2 on bad usage.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
B=${POLLSCALE:-$root/build/release/app/pollscale}
n=${1:-60}
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "dataset_kill_check.sh: N '$n' is not a positive integer" >&2; exit 2; }
[[ -x $B ]] || { echo "dataset_kill_check.sh: no pollscale binary at $B" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
D=$work/d
args=(--scenarios wakeup --mechanisms poll --n 1 --no-progress)
"$B" calibrate "${args[@]}" -o "$D" >/dev/null 2>&1
t0=$(date +%s%N)
"$B" calibrate "${args[@]}" -o "$work/timing" >/dev/null 2>&1
wall_ms=$((($(date +%s%N) - t0) / 1000000))
read -r -a sleeps <<<"$(python3 -c "print(' '.join(str($wall_ms * (0.80 + i * 0.25 / $n) / 1000) for i in range($n)))")"
readable=0 refused=0 new=0
for ((i = 0; i < n; ++i)); do
  before=$(md5sum <"$D/summary.csv")
  "$B" calibrate "${args[@]}" --force --seed $((i + 2)) -o "$D" >/dev/null 2>&1 &
  pid=$!
  sleep "${sleeps[$i]}"
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  if "$B" compare "$D" "$D" >/dev/null 2>"$work/err"; then
    readable=$((readable + 1))
  else
    refused=$((refused + 1))
    cat "$work/err" >&2
  fi
  [[ $(md5sum <"$D/summary.csv") != "$before" ]] && new=$((new + 1))
done
hidden=$(find "$work" -maxdepth 1 -name '.d.*' | wc -l)
echo "one run ${wall_ms} ms; of $n kills: readable $readable, refused $refused, new dataset $new; hidden directories left beside it: $hidden"
((refused == 0))
