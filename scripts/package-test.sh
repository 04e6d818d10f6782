#!/usr/bin/env bash
# Build the Debian packages and prove they install and run, then leave the machine as it was:
#   scripts/package-test.sh [BUILD_DIR]      (default: build-package in the repository root)
# BUILD_DIR may be an existing build (CI passes its test build, configured the same way): the
# configure below then changes nothing its objects depend on and the build step has little to do.
# 1. configures a portable Release build (-DWB_NATIVE=OFF -DWB_TESTS=OFF -DCMAKE_INSTALL_PREFIX=/usr;
#    -DWB_CUDA=ON where nvcc is installed, else OFF), builds it, and checks that nothing was compiled
#    with -march=native;
# 2. `cmake --install` into BUILD_DIR/stage (DESTDIR) and lists what went where;
# 3. `cpack -G DEB` (dependencies from dpkg-shlibdeps) and shows the packages' control fields: the base
#    package mlp-workbench (no CUDA dependency) and, with CUDA, mlp-workbench-cuda (the plugin);
# 4. installs the base .deb alone with apt-get (as root, else with sudo), runs /usr/bin/mlpwb info and
#    --version (and mlp-workbench --version when the GUI is in the package), checks the desktop entry
#    and icon; mlpwb info must say the CUDA backend is not installed;
# 5. with CUDA: runs the installed mlpwb with the plugin from mlp-workbench-cuda (MLPWB_PLUGIN_DIR) while
#    the CUDA libraries are hidden from the loader, and again while they are visible: each must exit 0
#    and name what is missing (the library; then the driver or device, on a machine without a GPU);
# 6. removes the package, and any packages apt-get pulled in for it, again.
# Exits non-zero on any failure. Environment: JOBS (default: all cores), CMAKE_ARGS (extra flags).
set -euo pipefail

start=$(date +%s)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${1:-$root/build-package}
case "$build_dir" in /*) ;; *) build_dir=$PWD/$build_dir ;; esac
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
pkg=mlp-workbench

say() { printf '\n== %s\n' "$*"; }
fail() {
    echo "package-test: FAILED: $*" >&2
    exit 1
}

trap 'echo "package-test: FAILED: line $LINENO: $BASH_COMMAND" >&2' ERR

sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)

for tool in cmake cpack dpkg dpkg-deb dpkg-shlibdeps apt-get; do
    command -v "$tool" >/dev/null 2>&1 ||
        fail "$tool not found (a Debian/Ubuntu system with cmake and dpkg-dev is needed: apt-get install cmake dpkg-dev)"
done
# Do not touch a copy someone installed on purpose: this script installs and removes the package.
if dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed"; then
    fail "$pkg is already installed on this machine; remove it first (apt-get remove $pkg)"
fi
[ ! -e /usr/bin/mlpwb ] || fail "/usr/bin/mlpwb exists and belongs to no package; remove it first"

# The CUDA backend is built where a CUDA toolkit is installed: it is a plugin in a package of its own,
# so the base package still depends only on Debian packages (the CUDA runtime and cuBLAS are not).
cuda=OFF
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then cuda=ON; fi

say "configure (portable Release, CUDA $cuda) in $build_dir"
generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
# shellcheck disable=SC2086  # CMAKE_ARGS is a list of flags
cmake -S "$root" -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DWB_NATIVE=OFF -DWB_TESTS=OFF \
    -DWB_CUDA="$cuda" -DCMAKE_INSTALL_PREFIX=/usr ${CMAKE_ARGS:-}

say "build"
cmake --build "$build_dir" -j "$jobs"
if grep -q -- '-march=native' "$build_dir/compile_commands.json"; then
    fail "something in $build_dir was compiled with -march=native; a package must run on any $(dpkg --print-architecture) CPU"
fi
echo "no -march=native in $build_dir/compile_commands.json"

say "cmake --install into a staging directory (DESTDIR)"
stage=$build_dir/stage
rm -rf "$stage"
DESTDIR=$stage cmake --install "$build_dir" >/dev/null
(cd "$stage" && find . \( -type f -o -type l \) -printf '%M %10s  /%P\n' | sort -k3)
for f in usr/bin/mlpwb usr/share/applications/$pkg.desktop usr/share/icons/hicolor/scalable/apps/$pkg.svg; do
    [ -e "$stage/$f" ] || fail "cmake --install did not put /$f in place"
done
if [ "$cuda" = ON ]; then
    plugins=("$stage"/usr/lib/*/mlp-workbench/libmlpwb-cuda.so)
    [ -f "${plugins[0]}" ] || fail "cmake --install did not put the CUDA plugin in /usr/lib/<multiarch>/mlp-workbench"
fi

say "cpack -G DEB"
rm -rf "$build_dir/packages"
(cd "$build_dir" && cpack -G DEB -B "$build_dir/packages")
debs=("$build_dir"/packages/"$pkg"_*.deb)
if [ ${#debs[@]} -ne 1 ] || [ ! -f "${debs[0]}" ]; then
    fail "expected one $pkg .deb in $build_dir/packages"
fi
deb=${debs[0]}
dpkg-deb --field "$deb" Package Version Architecture Section Maintainer Depends Installed-Size
echo "files:"
dpkg-deb --contents "$deb" | awk '{print "  " $1 " " $3 "  " $6}'
version=$(dpkg-deb --field "$deb" Version)
depends=$(dpkg-deb --field "$deb" Depends)
[ -n "$depends" ] || fail "the package has no Depends: dpkg-shlibdeps did not run"
if grep -qiE 'cuda|cublas|nvidia' <<<"$depends"; then fail "the base package depends on CUDA: $depends"; fi
if dpkg-deb --contents "$deb" | grep -q 'libmlpwb-cuda'; then fail "the base package contains the CUDA plugin"; fi
cuda_deb=""
if [ "$cuda" = ON ]; then
    cuda_debs=("$build_dir"/packages/"$pkg"-cuda_*.deb)
    [ -f "${cuda_debs[0]}" ] || fail "expected a $pkg-cuda .deb in $build_dir/packages"
    cuda_deb=${cuda_debs[0]}
    echo
    dpkg-deb --field "$cuda_deb" Package Version Architecture Depends Installed-Size
    echo "files:"
    dpkg-deb --contents "$cuda_deb" | awk '{print "  " $1 " " $3 "  " $6}'
    cuda_depends=$(dpkg-deb --field "$cuda_deb" Depends)
    [ "$cuda_depends" = "$pkg (= $version)" ] || fail "$pkg-cuda depends on '$cuda_depends', not '$pkg (= $version)'"
fi

say "apt-get install $deb"
# What dpkg knows before (any state) and what is installed, to undo exactly what the test installs.
known=$(mktemp)
before=$(mktemp)
after=$(mktemp)
unpacked=$(mktemp -d)
list_installed() { dpkg-query -W -f='${db:Status-Abbrev} ${Package}:${Architecture}\n' | awk '$1 == "ii" {print $2}' | sort; }
dpkg-query -W -f='${Package}:${Architecture}\n' | sort >"$known"
list_installed >"$before"
installed=0
cleanup() {
    local rc=$?
    if [ "$installed" -eq 1 ]; then
        say "apt-get remove $pkg (and what was installed for it)"
        DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get remove -y -qq -o Dpkg::Use-Pty=0 "$pkg" || rc=1
        # Packages installed now, not before, that apt-get marked automatic (pulled in as dependencies):
        # purged when dpkg did not know them at all before, else only removed (their old config stays).
        list_installed >"$after"
        local auto p purge=() remove=()
        auto=$(apt-mark showauto)
        while read -r p; do
            grep -qx -e "${p%:*}" -e "$p" <<<"$auto" || continue
            if grep -qx -e "$p" "$known"; then remove+=("$p"); else purge+=("$p"); fi
        done < <(comm -13 "$before" "$after")
        if [ ${#purge[@]} -gt 0 ]; then
            echo "purging the dependencies installed for the test: ${purge[*]}"
            DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get purge -y -qq -o Dpkg::Use-Pty=0 "${purge[@]}" || rc=1
        fi
        if [ ${#remove[@]} -gt 0 ]; then
            echo "removing the dependencies installed for the test: ${remove[*]}"
            DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get remove -y -qq -o Dpkg::Use-Pty=0 "${remove[@]}" || rc=1
        fi
        if [ -e /usr/bin/mlpwb ] || dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed"; then
            echo "package-test: FAILED: $pkg is still installed" >&2
            rc=1
        fi
    fi
    rm -f "$known" "$before" "$after"
    rm -rf "$unpacked"
    if [ "$rc" -eq 0 ]; then
        say "package-test: OK ($pkg $version, $(($(date +%s) - start)) s)"
    fi
    exit "$rc"
}
trap cleanup EXIT
installed=1
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq -o Dpkg::Use-Pty=0 --no-install-recommends "$deb"

say "the installed package"
dpkg -L "$pkg" | while read -r f; do [ -d "$f" ] || echo "  $f"; done
# A shared library that no installed package owns (e.g. a CUDA toolkit from NVIDIA's .run installer)
# cannot appear in Depends (dpkg-shlibdeps skips it), so the package would not start elsewhere.
for exe in $(dpkg -L "$pkg" | grep '^/usr/bin/'); do
    unowned=()
    while read -r lib; do
        dpkg -S "$(readlink -f "$lib")" >/dev/null 2>&1 || dpkg -S "$lib" >/dev/null 2>&1 || unowned+=("$lib")
    done < <(ldd "$exe" | awk '$2 == "=>" && $3 ~ /^\// {print $3}')
    if [ ${#unowned[@]} -gt 0 ]; then
        echo "package-test: WARNING: $exe needs libraries that no Debian package owns, so Depends cannot name them:" >&2
        printf '  %s\n' "${unowned[@]}" >&2
    fi
done
echo "\$ /usr/bin/mlpwb --version"
got=$(/usr/bin/mlpwb --version) || fail "mlpwb --version failed"
echo "$got"
[ "$got" = "mlpwb $version" ] || fail "mlpwb --version says '$got', the package is version $version"
if ldd /usr/bin/mlpwb | grep -E 'libcudart|libcublas'; then fail "/usr/bin/mlpwb links a CUDA library"; fi
echo "\$ /usr/bin/mlpwb info"
info=$(/usr/bin/mlpwb info) || fail "mlpwb info failed"
echo "$info"
grep -qE '^cpu +available' <<<"$info" || fail "mlpwb info lists no available cpu backend"
grep -qE '^cuda +unavailable: ' <<<"$info" || fail "mlpwb info does not list cuda as unavailable"
# The CPU kernels: the installed binary trains under the baseline target and under the best one this
# processor runs (it holds several and picks one at start; MLPWB_CPU_TARGET forces one), and each
# run's record names the target it ran with.
best=$(sed -nE 's/^ +kernel targets: ([a-z0-9]+).*/\1/p' <<<"$info")
[ -n "$best" ] || fail "mlpwb info names no CPU kernel targets"
for target in baseline "$best"; do
    record="$unpacked/run-$target.json"
    echo "\$ MLPWB_CPU_TARGET=$target /usr/bin/mlpwb train --builtin --rows 5000 --epochs 3 --out $record"
    MLPWB_CPU_TARGET=$target /usr/bin/mlpwb train --builtin --rows 5000 --epochs 3 --out "$record" >/dev/null ||
        fail "mlpwb train failed under the $target CPU target"
    python3 - "$record" "$target" <<'PY' || fail "the $target run's record is not a completed run on that target"
import json, sys
record = json.load(open(sys.argv[1]))
target = record["environment"].get("cpu_target", "")
print(f"  {sys.argv[2]}: {record['status']}, {len(record['epochs'])} epochs, cpu_target: {target}")
sys.exit(0 if record["status"] == "completed" and target.startswith(sys.argv[2] + " ") else 1)
PY
done
if [ "$cuda" = ON ]; then
    grep -qE '^cuda +unavailable: the CUDA backend is not installed' <<<"$info" ||
        fail "without $pkg-cuda, mlpwb info does not say the CUDA backend is not installed"
fi
if [ -n "$cuda_deb" ]; then
    # The plugin exactly as mlp-workbench-cuda installs it, found through MLPWB_PLUGIN_DIR (the base
    # package stays the only one installed).
    dpkg-deb -x "$cuda_deb" "$unpacked"
    plugin_dirs=("$unpacked"/usr/lib/*/mlp-workbench)
    plugin_dir=${plugin_dirs[0]}
    grep -qF "/${plugin_dir#"$unpacked"/}" <<<"$info" ||
        fail "mlpwb does not look for the plugin where $pkg-cuda installs it (/${plugin_dir#"$unpacked"/})"
    # The CUDA libraries hidden: the dynamic loader run with --inhibit-cache ignores /etc/ld.so.cache
    # (where the toolkit's directories are listed) and searches only the system's own directories.
    ldso=$(ldd /usr/bin/mlpwb | awk '$1 ~ /^\/.*ld-linux/ {print $1; exit}')
    echo "\$ MLPWB_PLUGIN_DIR=$plugin_dir $ldso --inhibit-cache /usr/bin/mlpwb info   (CUDA libraries hidden)"
    hidden=$(env -u LD_LIBRARY_PATH MLPWB_PLUGIN_DIR="$plugin_dir" "$ldso" --inhibit-cache /usr/bin/mlpwb info) ||
        fail "mlpwb info failed with the plugin and no CUDA libraries"
    echo "$hidden"
    cuda_line=$(grep -E '^cuda ' <<<"$hidden") || fail "mlpwb info lists no cuda backend"
    if ls /lib/*/libcudart.so.* /usr/lib/*/libcudart.so.* >/dev/null 2>&1; then
        # A CUDA runtime in the system's own directories cannot be hidden this way.
        grep -qE '^cuda +(available|unavailable: .+)' <<<"$cuda_line" || fail "unexpected: $cuda_line"
        echo "(a CUDA runtime is in the system's library directories: the missing-library case was not exercised)"
    else
        grep -qE '^cuda +unavailable: .*lib(cudart|cublas|cublasLt)\.so[.0-9]*: cannot open shared object file' \
            <<<"$cuda_line" || fail "mlpwb info does not name the missing CUDA library: $cuda_line"
        echo "checked: with the CUDA libraries hidden, mlpwb names the missing one and exits 0"
    fi
    # The CUDA libraries visible (as on a machine with the toolkit): the plugin loads, and the probe
    # answers (on a machine without a GPU: "no NVIDIA driver").
    echo "\$ MLPWB_PLUGIN_DIR=$plugin_dir /usr/bin/mlpwb info   (CUDA libraries as installed)"
    visible=$(MLPWB_PLUGIN_DIR="$plugin_dir" /usr/bin/mlpwb info) || fail "mlpwb info failed with the plugin"
    echo "$visible"
    grep -qE '^cuda +(available|unavailable: .+)' <<<"$visible" || fail "mlpwb info lists no cuda backend"
fi
if dpkg -L "$pkg" | grep -qx /usr/bin/mlp-workbench; then
    echo "\$ /usr/bin/mlp-workbench --version"
    got=$(QT_QPA_PLATFORM=offscreen /usr/bin/mlp-workbench --version) || fail "mlp-workbench --version failed"
    echo "$got"
    [ "$got" = "mlp-workbench $version" ] || fail "mlp-workbench --version says '$got', the package is version $version"
else
    echo "(no GUI binary in this package: mlp-workbench not run)"
fi
desktop=/usr/share/applications/$pkg.desktop
icon=/usr/share/icons/hicolor/scalable/apps/$pkg.svg
[ -f "$desktop" ] || fail "$desktop is not installed"
[ -f "$icon" ] || fail "$icon is not installed"
echo "installed: $desktop, $icon"
if command -v desktop-file-validate >/dev/null 2>&1; then
    desktop-file-validate --no-hints "$desktop" || fail "desktop-file-validate refuses $desktop"
    echo "desktop-file-validate: $desktop is valid"
fi
