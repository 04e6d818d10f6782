#!/usr/bin/env bash
# Builds everything with AddressSanitizer + UndefinedBehaviorSanitizer in a separate build directory
# and runs the whole test suite there; any finding (a memory error, undefined behaviour, a leak)
# fails the run.
#   scripts/sanitize.sh [BUILD_DIR]      default BUILD_DIR: build-asan (relative to the repository root)
# Environment: JOBS (default: all cores), CMAKE_ARGS (extra configure flags), CTEST_ARGS (e.g. "-R csv"),
# CC/CXX (the compiler; CI uses clang with CMAKE_ARGS=-DWB_FUZZ=ON, and scripts/fuzz.sh then fuzzes
# in the same build).
# Suppressions, each with its reason, live in scripts/sanitizer-suppressions/{lsan,ubsan}.supp and are
# used when present. ThreadSanitizer is not built here: core has no worker thread yet (the GUI adds it).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${1:-build-asan}
case "$build_dir" in /*) ;; *) build_dir="$root/$build_dir" ;; esac
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
supp="$root/scripts/sanitizer-suppressions"

start=$(date +%s)
# Without the CUDA backend: the sanitizers instrument host code only, and the CUDA runtime's own
# allocations would only add noise (its kernels' CPU twins are built and tested here all the same).
# -O1 -g1: the level AddressSanitizer's authors recommend, and line tables are all a stack trace
# needs; it compiles in half the time of -O2 -g. With GCC, -fexpensive-optimizations keeps its
# contraction of a * b + c into one fused multiply-add (-O2 does it, -O1 alone not), so the arithmetic
# under test rounds as in the normal build; clang contracts within an expression at every level.
flags="-O1 -g1 -DNDEBUG"
if ! "${CXX:-c++}" --version 2>/dev/null | grep -qi clang; then flags="$flags -fexpensive-optimizations"; fi
# shellcheck disable=SC2086  # CMAKE_ARGS is a list of flags
cmake -S "$root" -B "$build_dir" -G Ninja \
  -DWB_SANITIZE=address,undefined -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$flags" \
  -DWB_NATIVE=ON -DWB_CUDA=OFF ${CMAKE_ARGS:-}
cmake --build "$build_dir" -j "$jobs"
built=$(date +%s)

# Every finding is fatal and comes with a stack trace. (The code is also compiled with
# -fno-sanitize-recover=all, so UBSan stops at the first report whatever these say.)
# Not detect_stack_use_after_return: its fake stack frames are only 32-byte aligned, and with
# -march=native GCC moves 64-byte-aligned AVX-512 stack data with vmovdqa64, which then faults
# (a false SEGV, seen in tst_prepare on an initializer_list of eight doubles; GCC bug 110027).
asan="halt_on_error=1:abort_on_error=1:detect_leaks=1:print_stacktrace=1:strict_string_checks=1"
asan="$asan:check_initialization_order=1:strict_init_order=1"
ubsan="halt_on_error=1:abort_on_error=1:print_stacktrace=1"
lsan="print_suppressions=0"
[ -f "$supp/ubsan.supp" ] && ubsan="$ubsan:suppressions=$supp/ubsan.supp"
[ -f "$supp/lsan.supp" ] && lsan="$lsan:suppressions=$supp/lsan.supp"
export ASAN_OPTIONS="$asan" UBSAN_OPTIONS="$ubsan" LSAN_OPTIONS="$lsan"
symbolizer=$(command -v llvm-symbolizer || true)
[ -n "$symbolizer" ] && export ASAN_SYMBOLIZER_PATH="$symbolizer"

status=0
# shellcheck disable=SC2086  # CTEST_ARGS is a list of flags
(cd "$build_dir" && ctest --output-on-failure -j "$jobs" ${CTEST_ARGS:-}) || status=$?
end=$(date +%s)
echo "sanitize.sh: build $((built - start)) s, tests $((end - built)) s, in $build_dir"
if [ "$status" -ne 0 ]; then
  echo "sanitize.sh: FAILED: a test failed or a sanitizer reported a finding (see the output above)" >&2
fi
exit "$status"
