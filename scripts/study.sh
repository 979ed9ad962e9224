#!/usr/bin/env bash
# The default study: set up, build (release preset) and run pollscale's main job on this
# machine. Today that is the quick calibration of every mechanism and scenario; the
# dataset goes to out/study-<UTC time>/ (or the directory given as $1) and its summary
# table is printed on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target pollscale
out=${1:-out/study-$(date -u +%Y%m%d-%H%M%S)}
build/release/app/pollscale calibrate --quick --out "$out"
echo "study: dataset in $out" >&2
