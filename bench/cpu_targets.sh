#!/usr/bin/env bash
# The CPU kernels' targets side by side, interleaved in one run: a portable build (as the package is
# built, -DWB_NATIVE=OFF, its kernels chosen at start) against a native build (-march=native), each
# target of the portable build forced through MLPWB_CPU_TARGET, and JAX jit+scan (the workbench's
# own JAX loop, `mlpwb train --backend jax`) on the same data from the same initial weights.
#
#   bench/cpu_targets.sh --portable DIR --native DIR [--python PY] [--rounds R] [--out DIR]
#
# --portable DIR  a build configured with -DWB_NATIVE=OFF (cli/mlpwb in it)
# --native DIR    a build configured with -DWB_NATIVE=ON
# --python PY     an interpreter with JAX for the JAX row (left out when it has none)
# --rounds R      rounds; each round runs every program once, in the same order (default 5)
# --out DIR       where the RunRecords go (default bench/out/cpu_targets)
# --only NAME     one workload: founding or wide (default both)
# Workloads: the founding one (`--builtin --preset Fastest`, 61→20→10→1 tanh, batch 2048, 30
# epochs) and the wide model (1024,1024 hidden, 20,000 rows, 4 epochs). Prints one Markdown table:
# the median over rounds of each run's median epoch (warm-up epoch left out), and its min–max.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
portable="" native="" python="" rounds=5 out="$here/out/cpu_targets" only=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --portable) portable="$2"; shift ;;
        --native) native="$2"; shift ;;
        --python) python="$2"; shift ;;
        --rounds) rounds="$2"; shift ;;
        --out) out="$2"; shift ;;
        --only) only="$2"; shift ;;
        *) echo "cpu_targets.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
[[ -x "$portable/cli/mlpwb" && -x "$native/cli/mlpwb" ]] || { echo "cpu_targets.sh: --portable and --native need built folders" >&2; exit 2; }
mkdir -p "$out"

# name|build|MLPWB_CPU_TARGET|extra flags
programs=("native build|$native||" "portable build, its choice|$portable||")
for t in v4 v3 baseline; do
    if MLPWB_CPU_TARGET=$t "$portable/cli/mlpwb" info 2>/dev/null | grep -q "^cpu   available"; then
        programs+=("portable build, forced $t|$portable|$t|")
    fi
done
if [[ -n "$python" ]] && "$python" -c "import jax" 2>/dev/null; then
    programs+=("JAX jit+scan (mlpwb --backend jax)|$portable||--backend jax --python $python")
fi
workloads=()
[[ "$only" == wide ]] || workloads+=("founding|--builtin --epochs 30 --preset Fastest")
[[ "$only" == founding ]] || workloads+=("wide 1024,1024|--builtin --rows 20000 --layers 1024,1024 --epochs 4 --preset Fastest")

echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs), $(nproc) threads; load $(cut -d' ' -f1-3 /proc/loadavg)"
for ((round = 1; round <= rounds; round++)); do
    for w in "${workloads[@]}"; do
        for p in "${programs[@]}"; do
            IFS='|' read -r name build target extra <<<"$p"
            record="$out/${w%%|*}--${name//[^a-zA-Z0-9]/_}--$round.json"
            # shellcheck disable=SC2086  # the workload's and the program's flags are lists
            MLPWB_CPU_TARGET=$target "$build/cli/mlpwb" train ${w#*|} $extra --out "$record" >/dev/null
        done
    done
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$out" "${#programs[@]}" "${programs[@]}" "${workloads[@]}" <<'PY'
import glob, json, statistics, sys
out, count = sys.argv[1], int(sys.argv[2])
names = [p.split("|")[0] for p in sys.argv[3:3 + count]]
workloads = [w.split("|")[0] for w in sys.argv[3 + count:]]
def slug(s): return "".join(c if c.isalnum() else "_" for c in s)
print("| workload | program | median epoch ms | min-max over rounds | × the native build |")
print("| --- | --- | ---: | ---: | ---: |")
for workload in workloads:
    medians = {}
    for name in names:
        runs = []
        for f in sorted(glob.glob(f"{out}/{workload}--{slug(name)}--*.json")):
            epochs = json.load(open(f))["epochs"]
            if not any(e.get("warmup") for e in epochs): epochs = epochs[1:]  # the first is the warm-up
            runs.append(statistics.median(e["wall_ms"] for e in epochs if not e.get("warmup")))
        medians[name] = (statistics.median(runs), min(runs), max(runs))
    base = medians[names[0]][0]
    for name in names:
        m, lo, hi = medians[name]
        print(f"| {workload} | {name} | {m:.2f} | {lo:.2f}-{hi:.2f} | {m / base:.2f} |")
PY
