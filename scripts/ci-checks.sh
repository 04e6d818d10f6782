#!/usr/bin/env bash
# The guard rails CI runs after the plain test suite: the suites' skips, format, every source listed
# in CMake, clang-tidy, the ASan+UBSan test run, the fuzzers, and the .deb install test. Every step
# runs; the script fails if any step failed.
#   scripts/ci-checks.sh [FUZZ_SECONDS=60] [PACKAGE_BUILD_DIR=build-package] [TEST_BUILD_DIR=build]
# PACKAGE_BUILD_DIR: where the package is built; a build already configured as package-test.sh
# configures (portable, -DCMAKE_INSTALL_PREFIX=/usr) is reused as it is, anything else is rebuilt.
# TEST_BUILD_DIR: where `scripts/setup.sh test` ran the suites (its ctest-junit.xml is read).
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 1
fuzz_seconds=${1:-60}
package_build_dir=${2:-build-package}
test_build_dir=${3:-build}
# shellcheck source=lib/packages.sh
. "$root/scripts/lib/packages.sh"
wb_install_packages clang clang-format clang-tidy libclang-rt-14-dev dpkg-dev desktop-file-utils || exit 1

failed=()
summary=()
step() {  # step NAME COMMAND...: runs one check, times it, remembers a failure
  local name=$1 start=$SECONDS
  shift
  echo "=== $name: $*"
  if "$@"; then
    summary+=("ok      $name ($((SECONDS - start)) s)")
  else
    summary+=("FAILED  $name ($((SECONDS - start)) s)")
    failed+=("$name")
  fi
}

format_check() {
  git ls-files '*.h' '*.cpp' '*.cu' '*.cuh' | xargs clang-format --dry-run --Werror
}

# Every skip of the plain test run is on tests/skip-allowlist.txt (on CI's machine: the CUDA suites),
# and the suites CI installs the means for ran: Keras and JAX (scripts/ci-venv.sh), PyTorch, SLURM.
skips_check() {
  python3 scripts/check-skips.py "$test_build_dir/ctest-junit.xml" \
    --require fw_keras_backend fw_jax_backend fw_torch_backend gui_torch_training sweep_slurm
}

step "skips" skips_check
step "format" format_check
step "source lists" scripts/check-source-lists.sh
step "core floors" scripts/check-core-floors.sh
step "gpu-check self-test (fake tools)" scripts/gpu-check-selftest.sh
step "clang-tidy" scripts/tidy.sh
# The unit suites under ASan+UBSan (the GUI suites run in the plain build; Qt itself is not
# instrumented, so its allocations would only add noise to LeakSanitizer). Built with clang and the
# fuzz targets, so the fuzzers run in the same build instead of compiling wb_core a second time (and
# the code is checked by a second compiler: the plain build is GCC's).
asan_unit_tests() { CC=clang CXX=clang++ CMAKE_ARGS="-DWB_GUI=OFF -DWB_FUZZ=ON" scripts/sanitize.sh build-asan; }
step "asan+ubsan tests" asan_unit_tests
step "fuzzers (${fuzz_seconds} s each)" scripts/fuzz.sh "$fuzz_seconds" build-asan
step "package install" scripts/package-test.sh "$package_build_dir"

echo "=== guard rails"
printf '%s\n' "${summary[@]}"
[ ${#failed[@]} -eq 0 ] || { echo "failed: ${failed[*]}"; exit 1; }
