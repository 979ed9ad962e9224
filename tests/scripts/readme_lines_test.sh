#!/usr/bin/env bash
# Every example line of README.md names a command the binary has and only options that
# command's --help lists: a cheap check that the README's lines still parse, run in CI
# (scripts/readme_examples.sh runs them, which takes minutes and a calibration).
# usage: tests/scripts/readme_lines_test.sh BUILD/app/pollscale
set -euo pipefail
bin=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
failures=0 checked=0
commands=$("$bin" --help | awk '/^commands:/ { f = 1; next } f && /^  [a-z]/ { print $1 } f && /^$/ { f = 0 }')
while IFS= read -r line; do
  cmd=${line%%  #*}
  # shellcheck disable=SC2016  # a literal $B, as the README spells it
  [[ $cmd == '$B '* ]] || continue
  read -r -a words <<<"${cmd#\$B }"
  sub=${words[0]}
  [[ $sub == --help ]] && continue
  if ! grep -qx "$sub" <<<"$commands"; then
    echo "README: '$cmd': '$sub' is not a pollscale command" >&2
    failures=$((failures + 1))
    continue
  fi
  help=$("$bin" "$sub" --help)
  for w in "${words[@]:1}"; do
    [[ $w == --* ]] || continue
    opt=${w%%=*}
    if ! grep -qE -- "(^|[ \\[])${opt}( |$)" <<<"$help"; then
      echo "README: '$cmd': $sub --help does not list $opt" >&2
      failures=$((failures + 1))
    fi
    checked=$((checked + 1))
  done
done < <("$root/scripts/readme_examples.sh" --list)
((checked > 20)) || { echo "README: only $checked options found: is the example block still there?" >&2; exit 1; }
if ((failures)); then
  echo "readme_lines_test: $failures problem(s)" >&2
  exit 1
fi
echo "readme_lines_test: $checked options on the README's lines, each listed by its command's --help"
