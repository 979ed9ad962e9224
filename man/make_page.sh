#!/usr/bin/env bash
# Writes the man page of one pollscale command with help2man, its NAME line being the
# command's summary from `pollscale --help` (so the two never disagree).
# usage: man/make_page.sh HELP2MAN POLLSCALE VERSION INCLUDE OUTDIR [COMMAND]
set -euo pipefail
help2man=$1 bin=$2 version=$3 include=$4 outdir=$5 cmd=${6:-}
mkdir -p "$outdir"
if [[ -z $cmd ]]; then
  exec "$help2man" --no-info --no-discard-stderr --include "$include" \
    --name "what waiting for events costs at N descriptors and C CPUs" \
    --version-string "pollscale $version" --output "$outdir/pollscale.1" "$bin"
fi
summary=$("$bin" --help | awk -v c="$cmd" '$1 == c { $1 = ""; sub(/^ +/, ""); print; exit }')
[[ -n $summary ]] || { echo "make_page.sh: '$cmd' is not a command of $bin" >&2; exit 1; }
exec "$help2man" --no-info --no-discard-stderr --include "$include" --help-option "$cmd --help" \
  --name "$summary" --version-string "pollscale-$cmd $version" --output "$outdir/pollscale-$cmd.1" "$bin"
