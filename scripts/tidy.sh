#!/usr/bin/env bash
# clang-tidy over every .cpp of core/, sweep/ and cli/ (git ls-files), with the checks in .clang-tidy; the headers
# of the same folders are checked where they are included (--header-filter, made from the same list, so a
# folder whose sources are checked never has its headers left out). Exits non-zero on any finding
# (WarningsAsErrors: '*').
#
#   scripts/tidy.sh [BUILD_DIR]     BUILD_DIR defaults to build-tidy
#
# BUILD_DIR is configured (not built) for its compile_commands.json, with the tests, the GUI and the CUDA
# backend off, so the result is the same on every machine: use a directory of its own, not your build.
# Environment: CLANG_TIDY (default clang-tidy, Debian 12's 14), JOBS (default: the number of cores).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build_dir=${1:-build-tidy}
clang_tidy=${CLANG_TIDY:-clang-tidy}
jobs=${JOBS:-$(nproc)}

command -v "$clang_tidy" >/dev/null || {
    echo "tidy.sh: $clang_tidy not found (apt-get install clang-tidy)" >&2
    exit 2
}

generator=()
if [[ ! -f $build_dir/CMakeCache.txt ]] && command -v ninja >/dev/null; then generator=(-G Ninja); fi
cmake -S . -B "$build_dir" "${generator[@]}" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
    -DWB_TESTS=OFF -DWB_GUI=OFF -DWB_CUDA=OFF >/dev/null

folders=(core sweep cli)
mapfile -t files < <(git ls-files "${folders[@]/%//*.cpp}")
header_filter="/($(IFS='|' && echo "${folders[*]}"))/([^/]+/)*[^/]+\.h\$"
for f in "${files[@]}"; do
    if ! grep -qF "\"file\": \"$root/$f\"" "$build_dir/compile_commands.json"; then
        echo "tidy.sh: $f is not in $build_dir/compile_commands.json (not part of the build?)" >&2
        exit 2
    fi
done

# The compile commands are GCC's: clang does not know some of its warning flags (-Wno-maybe-uninitialized),
# and its own warnings are not findings here (GCC's are, in the build), so -Werror must not turn them into
# errors either.
tidy_args=(--quiet -p "$build_dir" "--header-filter=$header_filter" --extra-arg=-Wno-unknown-warning-option
    --extra-arg=-Wno-error)

echo "tidy.sh: clang-tidy on ${#files[@]} files and the headers matching $header_filter, $jobs at a time ($("$clang_tidy" --version | grep -o 'version [0-9.]*'))"
start=$SECONDS
# One clang-tidy per file; each one's output is printed in one piece so parallel runs do not interleave,
# without clang's "N warnings generated" (those are the ones in system headers, filtered out).
status=0
# shellcheck disable=SC2016  # the single-quoted script expands its own arguments
printf '%s\n' "${files[@]}" | xargs -P "$jobs" -n 1 bash -c \
    'out=$("$@" 2>&1); rc=$?; out=$(grep -Ev "^[0-9]+ warnings? generated\.$" <<<"$out")
    if [[ -n $out ]]; then printf "%s\n" "$out"; fi; exit "$rc"' \
    tidy "$clang_tidy" "${tidy_args[@]}" || status=$?
if ((status != 0)); then
    echo "tidy.sh: findings (see above); $((SECONDS - start)) s" >&2
    exit 1
fi
echo "tidy.sh: no findings; $((SECONDS - start)) s"
