#!/usr/bin/env bash
# Creates the virtual environment for the peers that need torch 2, JAX or Keras/TensorFlow.
#
#   bench/peers/setup_venv.sh [DIR]      (default DIR: .venv at the repository root)
#
# Installs bench/peers/requirements.txt from PyPI (several GB: the PyPI torch wheel brings the CUDA
# runtime libraries). Debian's /usr/bin/python3 builds the venv, so the peers see the same Python as
# the Debian PyTorch 1.13 peers. Re-running on an existing DIR only installs what is missing.
# Afterwards: WB_PEER_PYTHON=DIR/bin/python bench/compare.sh --builtin
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
dir="${1:-$root/.venv}"
base_python="${WB_VENV_BASE_PYTHON:-/usr/bin/python3}"

if ! "$base_python" -c 'import venv, ensurepip' 2>/dev/null; then
    echo "error: $base_python lacks the venv/ensurepip modules (Debian: apt-get install python3-venv)" >&2
    exit 2
fi
if [[ ! -x "$dir/bin/python" ]]; then
    echo "creating $dir with $base_python"
    "$base_python" -m venv "$dir"
fi
"$dir/bin/python" -m pip install --upgrade pip
"$dir/bin/python" -m pip install -r "$here/requirements.txt"
"$dir/bin/python" -m pip freeze > "$dir/requirements.lock.txt"

# What the peers will find (a failed import here is reported, not fatal: the peer then skips).
"$dir/bin/python" - <<'PY'
import importlib, sys
print("python", sys.version.split()[0])
for name in ("numpy", "torch", "tensorflow", "keras", "jax", "jaxlib"):
    try:
        module = importlib.import_module(name)
        print(f"{name} {module.__version__}")
    except Exception as exc:  # report, do not fail: the matching peer prints SKIP
        print(f"{name}: not importable ({type(exc).__name__}: {exc})")
PY
echo "venv ready: $dir (full package list: $dir/requirements.lock.txt)"
echo "use it with: WB_PEER_PYTHON=$dir/bin/python bench/compare.sh --builtin"
