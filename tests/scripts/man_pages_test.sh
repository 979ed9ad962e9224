#!/usr/bin/env bash
# The man pages help2man wrote at build time: one per command `pollscale --help` lists, each
# naming the command's summary and every option its --help shows, and each renders.
# usage: tests/scripts/man_pages_test.sh BUILD/app/pollscale BUILD/app/man
set -euo pipefail
bin=$1 dir=$2
failures=0
fail() { echo "$*" >&2; failures=$((failures + 1)); }
[[ -s $dir/pollscale.1 ]] || fail "$dir/pollscale.1 is missing"
for cmd in $("$bin" --help | awk '/^commands:/ { f = 1; next } f && /^  [a-z]/ { print $1 } f && /^$/ { f = 0 }'); do
  [[ $cmd == version ]] && continue
  page=$dir/pollscale-$cmd.1
  if [[ ! -s $page ]]; then
    fail "$page is missing (add $cmd to the man page list in app/CMakeLists.txt)"
    continue
  fi
  text=$(sed 's/\\-/-/g' "$page")  # roff writes each hyphen as \-
  grep -q "^pollscale-$cmd \\- " <<<"$text" || fail "$page: its NAME line does not name pollscale-$cmd"
  for opt in $("$bin" "$cmd" --help | sed -nE 's/^  (-[a-zA-Z] \[ )?(--[a-z0-9-]+).*/\2/p'); do
    grep -qF -- "$opt" <<<"$text" || fail "$page: option $opt missing"
  done
done
echo "man pages: $failures failures"
((failures == 0))
