#!/usr/bin/env bash
# The Python environment the keras and jax backend suites run in (CI, and a developer who wants the
# same): a virtual environment from PyPI with scripts/ci-requirements.txt, every package pinned.
#
#   scripts/ci-venv.sh      makes it where it is missing, checks that it imports, and prints its
#                           interpreter's path (the one line it writes to standard output)
#
# It lives outside the clone, in a cache folder named by the hash of the requirements file and the
# base interpreter's version, so later runs (and other clones) reuse it and a changed pin makes a new
# one: ${MLPWB_VENV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mlpwb-ci}/venv-<hash>. Making it takes about
# 2 GB and half a minute to a few minutes (the download); reusing it, a few seconds (the import check).
# Environments of other hashes in that folder are removed when a new one is made.
# WB_VENV_BASE_PYTHON: the interpreter that makes it (default Debian's /usr/bin/python3, as the peers').
#
# Then: MLPWB_TEST_KERAS_PYTHON=PATH MLPWB_TEST_JAX_PYTHON=PATH ctest --test-dir build -L framework
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
requirements="$root/scripts/ci-requirements.txt"
base_python=${WB_VENV_BASE_PYTHON:-/usr/bin/python3}
cache=${MLPWB_VENV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mlpwb-ci}

# shellcheck source=lib/packages.sh
. "$root/scripts/lib/packages.sh"
# Debian's python3 makes a venv with pip only with python3-venv (ensurepip).
[ "$base_python" != /usr/bin/python3 ] || wb_install_packages python3-venv >&2

if ! "$base_python" -c 'import venv, ensurepip' 2>/dev/null; then
  echo "ci-venv: $base_python lacks the venv/ensurepip modules (Debian: apt-get install python3-venv)" >&2
  exit 2
fi
version=$("$base_python" -c 'import sys; print(sys.version.split()[0])')
hash=$({ cat "$requirements"; echo "$base_python $version"; } | sha256sum | cut -c1-16)
venv="$cache/venv-$hash"

# The environment is whole when it has its marker and imports what the suites need, in the pinned
# versions: prints them, or says what is wrong (TensorFlow's start-up chatter is left out).
check() {
  [ -f "$venv/.complete" ] || { echo "ci-venv: no environment at $venv yet"; return 1; }
  local log status=0
  log=$(mktemp)
  "$venv/bin/python" - "$requirements" 2>"$log" <<'PY' || status=$?
import importlib, re, sys
pins = dict(re.match(r"([A-Za-z0-9_.-]+)(?:\[[^]]*\])?==(\S+)", line).groups()
            for line in open(sys.argv[1]) if line.strip() and not line.startswith("#"))
for module, package in (("tensorflow", "tensorflow-cpu"), ("keras", "keras"), ("jax", "jax"), ("optuna", "optuna")):
    found = importlib.import_module(module).__version__
    if found != pins[package]:
        sys.exit(f"ci-venv: {module} {found}, but {package}=={pins[package]} is pinned")
    print(f"ci-venv: {module} {found}")
PY
  [ "$status" -eq 0 ] || tail -n 20 "$log"
  rm -f "$log"
  return "$status"
}

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9  # one maker at a time; a second run waits and then reuses what the first made
if ! check >&2; then
  start=$SECONDS
  echo "ci-venv: making $venv with $base_python $version (scripts/ci-requirements.txt)" >&2
  rm -rf "$venv"
  "$base_python" -m venv "$venv"
  # No pip cache: the environment itself is the cache. Wheels only: nothing is compiled here.
  "$venv/bin/python" -m pip install --quiet --no-cache-dir --disable-pip-version-check --only-binary=:all: \
    -r "$requirements" >&2
  touch "$venv/.complete"
  for old in "$cache"/venv-*; do
    [ "$old" = "$venv" ] || rm -rf "$old"
  done
  echo "ci-venv: made in $((SECONDS - start)) s" >&2
  check >&2 || { echo "ci-venv: $venv does not import what scripts/ci-requirements.txt pins" >&2; exit 1; }
fi
echo "$venv/bin/python"
