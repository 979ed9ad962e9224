#!/usr/bin/env bash
# Runs every example line of README.md's "Using pollscale" block, as a user pasting them
# would, and says which failed: the README must stay true. Each line runs in a scratch
# folder that links the repository's build/, datasets/, bench/ and scripts/, with its own
# out/, so nothing lands in the checkout.
#
# The measuring lines (calibrate, study, the reproducibility, A/B and CPU-scaling scripts) take
# minutes each; by default they are skipped and out/q and out/r are copies of --data DIR
# (a calibration taken before), so the lines that read them run in about 9 minutes.
# --with-measurements runs them all, in order (about 30 minutes on a 2-vCPU VM).
#
# Usage: scripts/readme_examples.sh [--data DIR] [--with-measurements] [--keep DIR]
#        scripts/readme_examples.sh --list     (print the lines, run nothing)
# Exit status: 0 when every line run exits 0 (a line with --fail-on-regression may also
# exit 3, its documented verdict), 1 otherwise, 2 for bad usage.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
data="" measure=0 keep="" list=0
while (($#)); do
  case $1 in
    --data) data=$(cd "$2" && pwd); shift 2 ;;
    --with-measurements) measure=1; shift ;;
    --keep) keep=$2; shift 2 ;;
    --list) list=1; shift ;;
    -h | --help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "readme_examples: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
# The example block: from "## Using pollscale" to the end of its ```sh fence, continuation
# lines joined, the B= line dropped (B is set below).
mapfile -t lines < <(awk '/^## Using pollscale/ { s = 1 } s && /^```sh/ { f = 1; next } f && /^```/ { exit }
  f { if (sub(/\\$/, "")) { acc = acc $0; next } print acc $0; acc = "" }' "$root/README.md" | grep -v '^B=')
((${#lines[@]})) || { echo "readme_examples: no example block found in README.md" >&2; exit 2; }
if ((list)); then
  printf '%s\n' "${lines[@]}"
  exit 0
fi
if ((!measure)) && [[ -z $data ]]; then
  echo "readme_examples: give --data DIR (a calibration for out/q and out/r) or --with-measurements" >&2
  exit 2
fi
bin=$root/build/release/app/pollscale
[[ -x $bin ]] || { echo "readme_examples: $bin is not built (scripts/study.sh builds it)" >&2; exit 2; }

work=${keep:-$(mktemp -d /tmp/pollscale_readme.XXXXXX)}
mkdir -p "$work/out"
for d in build datasets bench scripts; do ln -sfn "$root/$d" "$work/$d"; done
if [[ -n $data ]]; then
  cp -r "$data" "$work/out/q"
  cp -r "$data" "$work/out/r"
fi
[[ -n $keep ]] || trap 'rm -rf "$work"' EXIT

# shellcheck disable=SC2016  # a literal $B, as the README's lines spell it
measuring='^\$B (study|calibrate) |^bench/reproducibility\.py|^bench/ab_interleaved\.py|^scripts/cpu_scaling_campaign\.sh'
failed=0
printf '%-6s %7s  %s\n' status seconds line
for line in "${lines[@]}"; do
  cmd=${line%%  #*}  # the comment after two spaces is not part of the command
  cmd=${cmd%"${cmd##*[![:space:]]}"}
  if ((!measure)) && [[ $cmd =~ $measuring ]]; then
    printf '%-6s %7s  %s\n' skip - "$cmd"
    continue
  fi
  start=$(date +%s.%N)
  set +e
  (cd "$work" && B=$bin bash -c "set -o pipefail; $cmd" >"$work/last.out" 2>"$work/last.err")
  rc=$?
  set -e
  secs=$(echo "$(date +%s.%N) - $start" | bc)
  ok=0
  ((rc == 0)) && ok=1
  [[ $cmd == *--fail-on-regression* ]] && ((rc == 3)) && ok=1
  if ((ok)); then
    printf '%-6s %7.1f  %s\n' ok "$secs" "$cmd"
  else
    printf '%-6s %7.1f  %s\n' "rc=$rc" "$secs" "$cmd"
    sed 's/^/    /' "$work/last.err" | tail -5
    failed=$((failed + 1))
  fi
done
if ((failed)); then
  echo "readme_examples: $failed line(s) failed"
  exit 1
fi
echo "readme_examples: every line run passed"
