#!/usr/bin/env bash
# Sets up, builds and runs every test. By default the asan-ubsan preset: the whole suite under
# AddressSanitizer + UndefinedBehaviorSanitizer, every warning on, asserts on (-Og, line tables).
# Usage: scripts/test.sh [preset]   (asan-ubsan by default; dev for the plain Debug build
# developers iterate with, tsan for ThreadSanitizer, release)
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-asan-ubsan}
scripts/setup.sh --tests
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
ctest --preset "$preset" -j "$(nproc)" --timeout 600
