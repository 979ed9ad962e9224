#!/usr/bin/env bash
# scripts/completion/pollscale.bash against the built binary: commands, each command's
# options (read from its --help) and the values of enumerated flags.
# usage: tests/scripts/completion_test.sh BUILD/app/pollscale
set -euo pipefail
bin=$1
source "$(dirname "$0")/../../scripts/completion/pollscale.bash"
failures=0

# complete WORD... : COMPREPLY for the command line WORD... (the last word being completed)
complete_line() {
  COMP_WORDS=("$bin" "$@")
  COMP_CWORD=$#
  _pollscale
}

# offered WORD: is WORD among COMPREPLY? (A loop, not `printf | grep -q`: under pipefail
# grep's early exit would fail printf with SIGPIPE when the list is long.)
offered() {
  local w
  for w in "${COMPREPLY[@]}"; do [[ $w == "$1" ]] && return 0; done
  return 1
}

expect() {  # expect WANTED WORD...
  local wanted=$1
  shift
  complete_line "$@"
  if ! offered "$wanted"; then
    echo "completing '$*': expected '$wanted', got: ${COMPREPLY[*]:-nothing}" >&2
    failures=$((failures + 1))
  fi
}

expect validate val
expect cells ce
expect --version --v
expect --train validate out/q --tr
expect --out fit out/q --o
expect --strict fit out/q --st
expect --fail-on-regression compare a b --fail
expect json simulate --format j
expect mechanisms compare a b --gate m
expect epoll simulate --mechanism ep
expect --mechanism capacity --mech

# Every command's every option is offered after "--".
for cmd in $(_pollscale_commands "$bin"); do
  [[ $cmd == version ]] && continue  # it takes no options
  complete_line "$cmd" --
  for opt in $("$bin" "$cmd" --help | sed -nE 's/^  (-[a-zA-Z] \[ )?(--[a-z0-9-]+).*/\2/p'); do
    offered "$opt" || { echo "$cmd: $opt not offered" >&2; failures=$((failures + 1)); }
  done
  ((${#COMPREPLY[@]} >= 2)) || { echo "$cmd: only ${#COMPREPLY[@]} options offered" >&2; failures=$((failures + 1)); }
done

echo "completion: $failures failures"
((failures == 0))
