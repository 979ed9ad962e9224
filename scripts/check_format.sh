#!/usr/bin/env bash
# Checks that every C++ source is formatted as .clang-format says (clang-format --dry-run),
# naming each file that is not. Run by ctest (format.check); fix with
#   clang-format -i $(git ls-files '*.cpp' '*.hpp' '*.h')
# Usage: scripts/check_format.sh [clang-format executable]
# Exit 0 when all are formatted, 1 when some are not, 2 when clang-format is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
exe=${1:-clang-format}
if ! command -v "$exe" >/dev/null; then
  echo "check_format.sh: $exe not found (scripts/setup.sh installs clang-format)" >&2
  exit 2
fi
mapfile -t files < <(find app bench calibrate datasets model scripts sim tests \
  -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' \) | sort)
bad=()
for f in "${files[@]}"; do
  if ! "$exe" --dry-run -Werror "$f" >/dev/null 2>&1; then bad+=("$f"); fi
done
if ((${#bad[@]})); then
  printf '%s: not formatted as .clang-format says\n' "${bad[@]}"
  echo "check_format.sh: ${#bad[@]} of ${#files[@]} files; fix with clang-format -i" >&2
  exit 1
fi
echo "check_format.sh: ${#files[@]} files formatted"
