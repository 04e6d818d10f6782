#!/usr/bin/env bash
# One-command set-up for MLP Workbench on Debian 12 / Ubuntu:
#   scripts/setup.sh run    install missing packages, build, start the main job on the built-in data
#   scripts/setup.sh test   install missing packages, build, run the whole test suite through ctest
#   scripts/setup.sh build  install missing packages and build only
# Environment: BUILD_DIR (default build), JOBS (default: all cores), CMAKE_ARGS (extra configure flags).
set -euo pipefail

mode=${1:-run}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}

# shellcheck source=lib/packages.sh
. "$root/scripts/lib/packages.sh"

# Everything the build and the tests need, from the distribution (nothing is downloaded at build time).
packages=(
  build-essential cmake ninja-build pkg-config
  libeigen3-dev nlohmann-json3-dev libcli11-dev libssl-dev libyaml-cpp-dev libhwy-dev
  qt6-base-dev qt6-svg-dev libqcustomplot-dev
  # The torch backend's tests run the user's PyTorch: Debian's, for /usr/bin/python3.
  python3-torch python3-numpy
  # The SLURM engine's test starts a real one-node cluster (munged, slurmctld, slurmd) as root.
  slurm-wlm munge
  # The report's test reads the PDF it wrote back: its pages as images, its text (pdftoppm, pdftotext).
  poppler-utils
)

build() {
  # shellcheck disable=SC2086  # CMAKE_ARGS is a list of flags
  cmake -S "$root" -B "$build_dir" -G Ninja ${CMAKE_ARGS:-}
  cmake --build "$build_dir" -j "$jobs"
}

wb_install_packages "${packages[@]}"
build
case "$mode" in
  build) ;;
  run)
    # The window needs a display; on a server (no X11 or Wayland) the founding case runs in the CLI.
    if [ -x "$build_dir/gui/mlp-workbench" ] && { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; }; then
      exec "$build_dir/gui/mlp-workbench"
    fi
    exec "$build_dir/cli/mlpwb" train --builtin --out "$build_dir/last-run.json"
    ;;
  test)
    cd "$build_dir"
    # The results with every suite's whole output (ctest keeps 1 KB of a passed one's by default), for
    # scripts/check-skips.py: which suites and functions skipped, and why.
    exec ctest --output-on-failure -j "$jobs" --output-junit ctest-junit.xml \
      --test-output-size-passed 8000000
    ;;
  *) echo "usage: scripts/setup.sh run|test|build" >&2; exit 2 ;;
esac
