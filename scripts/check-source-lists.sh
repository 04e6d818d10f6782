#!/usr/bin/env bash
# Every CMakeLists.txt lists its sources by name (no globs), so a file that is in the tree but in no
# list would silently not be built or tested. This check names each such file and fails.
#   scripts/check-source-lists.sh
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1

missing=0
require_listed() {  # require_listed LISTFILE WORD FILE: WORD must appear in LISTFILE as a whole word
  local list=$1 word=$2 file=$3
  if ! grep -qw -- "$word" "$list"; then
    echo "not in $list: $file"
    missing=1
  fi
}

# Library and program sources: the file name itself.
for dir in core kernels frameworks sweep cli gui; do
  for file in $(git ls-files "$dir/*.cpp" "$dir/*.cu"); do
    require_listed "$dir/CMakeLists.txt" "$(basename "$file")" "$file"
  done
done
# Test suites: tests/[gui/|gpu/|frameworks/]tst_NAME.cpp is listed as NAME.
for file in $(git ls-files 'tests/tst_*.cpp' 'tests/*/tst_*.cpp'); do
  name=$(basename "$file" .cpp)
  require_listed tests/CMakeLists.txt "${name#tst_}" "$file"
done

[ "$missing" -eq 0 ] && echo "every source and test suite is listed in its CMakeLists.txt"
exit "$missing"
