#!/usr/bin/env bash
# The default study: set up, build (release preset) and run pollscale's main job on this
# machine — `pollscale study`: the quick calibration of every mechanism and scenario, the
# fitted cost models, their validation (this machine and the historical record),
# predictions beyond the descriptor limit, a simulated server, and the report. Everything
# goes to out/study-<UTC time>/ (or the directory given as $1); open report/report.html.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target pollscale
out=${1:-out/study-$(date -u +%Y%m%d-%H%M%S)}
build/release/app/pollscale study --quick --out "$out"
