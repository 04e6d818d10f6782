#!/usr/bin/env bash
# Copies the core's build dependencies that a GPU machine's image lacks into a relocatable prefix,
#   scripts/gpu-deps.sh [PREFIX]        (default: .gpu-deps in the repository root; git-ignored)
# so that scripts/gpu-check.sh can build there with nothing installed. Run it HERE (on the Debian 12
# development machine, after scripts/setup.sh), then carry the prefix with the device tool:
#   carry [".gpu-deps"], command `scripts/gpu-check.sh /tmp/gc; ...` (see scripts/gpu-check.sh's header).
# The H200 image has nvcc, CMake, ninja, g++ and python3 (torch, jax) but no Eigen, nlohmann-json,
# CLI11 or OpenSSL headers, and nothing can be installed there.
# What goes in (about 14 MB, well under the 64 MiB the tool carries together with the source):
#   include/eigen3/Eigen, share/eigen3/cmake           Eigen 3.4 (header-only; 'unsupported' left out)
#   include/nlohmann, share/cmake/nlohmann_json          nlohmann-json 3.11 (header-only)
#   include/CLI, share/cmake/CLI11                       CLI11 (header-only)
#   include/openssl (+ the multiarch configuration.h, opensslconf.h), lib/libcrypto.so{,.3}
# The CMake package configs compute their prefix from their own location (three folders up), so the
# copied tree works wherever it lands: CMAKE_PREFIX_PATH=PREFIX is all find_package needs.
# libcrypto: Debian 12's OpenSSL is 3.0.x, ABI-compatible with Ubuntu 24.04's 3.0.x (same soname
# libcrypto.so.3). gpu-check.sh links the target machine's own /usr/lib/.../libcrypto.so.3 when it has
# one (the usual case: Python needs it) and falls back to the carried copy (found at run time through
# the build tree's RPATH) only when it has none; it only needs SHA-256 from it.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prefix=${1:-$root/.gpu-deps}
multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)

need() {
  if [ ! -e "$1" ]; then
    echo "gpu-deps: $1 is missing: run scripts/setup.sh first (it installs $2)" >&2
    exit 1
  fi
}
need /usr/include/eigen3/Eigen/Core libeigen3-dev
need /usr/share/eigen3/cmake/Eigen3Config.cmake libeigen3-dev
need /usr/include/nlohmann/json.hpp nlohmann-json3-dev
need /usr/share/cmake/nlohmann_json/nlohmann_jsonConfig.cmake nlohmann-json3-dev
need /usr/include/CLI/CLI.hpp libcli11-dev
need /usr/share/cmake/CLI11/CLI11Config.cmake libcli11-dev
need /usr/include/openssl/sha.h libssl-dev
need "/usr/lib/$multiarch/libcrypto.so.3" libssl3
need /usr/include/hwy/highway.h libhwy-dev
need "/usr/lib/$multiarch/libhwy.so.1" libhwy1

rm -rf "$prefix"
mkdir -p "$prefix/include/eigen3" "$prefix/share/eigen3" "$prefix/share/cmake" "$prefix/lib"
cp -r /usr/include/eigen3/Eigen "$prefix/include/eigen3/"
cp -r /usr/share/eigen3/cmake "$prefix/share/eigen3/"
cp -r /usr/include/nlohmann "$prefix/include/"
cp -r /usr/share/cmake/nlohmann_json "$prefix/share/cmake/"
cp -r /usr/include/CLI "$prefix/include/"
cp -r /usr/share/cmake/CLI11 "$prefix/share/cmake/"
cp -r /usr/include/openssl "$prefix/include/"
# Debian keeps the two architecture-specific OpenSSL headers in the multiarch folder; one folder here.
cp "/usr/include/$multiarch/openssl/"*.h "$prefix/include/openssl/"
cp -L "/usr/lib/$multiarch/libcrypto.so.3" "$prefix/lib/libcrypto.so.3"
ln -s libcrypto.so.3 "$prefix/lib/libcrypto.so"
cp -r /usr/include/hwy "$prefix/include/"
cp -L "/usr/lib/$multiarch/libhwy.so.1" "$prefix/lib/libhwy.so.1"
ln -s libhwy.so.1 "$prefix/lib/libhwy.so"
{
  echo "Copied by scripts/gpu-deps.sh on $(date -u +%Y-%m-%dT%H:%M:%SZ) from $(. /etc/os-release && echo "$PRETTY_NAME")"
  dpkg-query -W -f='${Package} ${Version}\n' libeigen3-dev nlohmann-json3-dev libcli11-dev libssl-dev libhwy-dev 2>/dev/null || true
} >"$prefix/VERSIONS.txt"
echo "gpu-deps: $prefix ($(du -sh "$prefix" | cut -f1)); carry it with the device tool: carry [\".gpu-deps\"]"
