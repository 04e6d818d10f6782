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

# Everything the build and the tests need, from the distribution (nothing is downloaded at build time).
packages=(
  build-essential cmake ninja-build pkg-config
  libeigen3-dev nlohmann-json3-dev libcli11-dev libssl-dev
  qt6-base-dev qt6-svg-dev libqcustomplot-dev
)

install_packages() {
  if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg-query >/dev/null 2>&1; then
    echo "setup: this is not a Debian/Ubuntu system; install these (or your system's equivalents) yourself:" >&2
    echo "  ${packages[*]}" >&2
    return 0
  fi
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "setup: installing ${missing[*]}"
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

build() {
  # shellcheck disable=SC2086  # CMAKE_ARGS is a list of flags
  cmake -S "$root" -B "$build_dir" -G Ninja ${CMAKE_ARGS:-}
  cmake --build "$build_dir" -j "$jobs"
}

install_packages
build
case "$mode" in
  build) ;;
  run)
    if [ -x "$build_dir/gui/mlp-workbench" ]; then
      exec "$build_dir/gui/mlp-workbench"
    fi
    exec "$build_dir/cli/mlpwb" train --builtin --out "$build_dir/last-run.json"
    ;;
  test)
    cd "$build_dir"
    exec ctest --output-on-failure -j "$jobs"
    ;;
  *) echo "usage: scripts/setup.sh run|test|build" >&2; exit 2 ;;
esac
