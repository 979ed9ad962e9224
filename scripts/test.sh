#!/usr/bin/env bash
# Sets up, builds (dev preset: Debug, warnings on) and runs every test.
# Usage: scripts/test.sh [preset]   (dev by default; asan-ubsan for the sanitizers)
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-dev}
scripts/setup.sh --tests
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
ctest --preset "$preset" -j "$(nproc)" --timeout 600
