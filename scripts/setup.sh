#!/usr/bin/env bash
# Installs the Debian packages pollscale builds and runs with, when any is missing.
# Safe to run again: it only calls apt-get when something is absent.
# Usage: scripts/setup.sh [--tests]   (--tests: also what only the tests need: a headless
# browser that renders the report, tests/scripts/report_browser_test.sh)
set -euo pipefail

packages=(
  cmake g++ make pkg-config git
  libeigen3-dev libboost-program-options-dev libboost-math-dev libboost-dev
  libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev liburing-dev libcsv-dev zlib1g-dev
  gnuplot-nox libcmark-gfm-dev libcmark-gfm-extensions-dev
  clang-format python3 python3-jsonschema clang help2man
)
if [[ ${1:-} == --tests ]]; then packages+=(chromium); fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo_cmd=()
  if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
