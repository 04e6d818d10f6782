#!/usr/bin/env python3
"""method: bayes against random search on the same space, against a grid as the reference.

The space: lr log-uniform in [1e-4, 1e-1] x batch_size in {256, 512, 1024, 2048}, the seed model
(61-20-10-1 tanh, Adam) on the built-in data with val_split 0.2, `--epochs` epochs.

  grid     lr at 9 log-spaced values x the 4 batch sizes (36 trials): its best val_loss is V.
  random   method: random, run_cap N, for each of `--searches` seeds;
  bayes    method: bayes (Optuna in `--python`), run_cap N, for the same seeds.

Trials run one after another (--jobs 1), so bayes asks after every result. For each search: the
number of trials until the best val_loss so far is within 1 % of V (N + 1 when it never is). Prints,
as Markdown for RESULTS.md, those counts, their medians over the seeds, and each search's best.
Trials, not seconds, are compared: they do not depend on the machine's load. Standard library only.

    bench/bayes_bench.py --python PYTHON_WITH_OPTUNA [--mlpwb build/cli/mlpwb] [--searches 5]
                         [--run-cap 20] [--epochs 100]
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPACE = """metric: {name: val_loss, goal: minimize}
parameters:
  batch_size: {values: [256, 512, 1024, 2048]}
"""
GRID_LR = "  lr: {values: [0.0001, 0.0003, 0.001, 0.002, 0.003, 0.006, 0.01, 0.03, 0.1]}\n"
DRAWN_LR = "  lr: {distribution: log_uniform_values, min: 0.0001, max: 0.1}\n"


# A sweep whose trial failed (a learning rate that diverges) exits 8: its other trials still count.
def sweep(mlpwb, tmp, name, text, base):
    spec = os.path.join(tmp, name + ".yaml")
    with open(spec, "w") as f:
        f.write(text)
    out = os.path.join(tmp, name)
    subprocess.run([mlpwb, "sweep", spec, "--out", out, "--jobs", "1", "--threads", "2"] + base,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    status = subprocess.run([mlpwb, "sweep", "status", out, "--json"], check=True, capture_output=True, text=True)
    return [t.get("val_loss") for t in json.loads(status.stdout)["trials"]]


def trials_to_reach(losses, target, cap):
    best = float("inf")
    for i, v in enumerate(losses):
        if v is not None:
            best = min(best, v)
        if best <= target:
            return i + 1
    return cap + 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mlpwb", default=os.path.join(ROOT, "build", "cli", "mlpwb"))
    ap.add_argument("--python", required=True, help="an interpreter with Optuna")
    ap.add_argument("--searches", type=int, default=5)
    ap.add_argument("--run-cap", type=int, default=20)
    ap.add_argument("--epochs", type=int, default=100)
    a = ap.parse_args()
    base = ["--builtin", "--val-split", "0.2", "--epochs", str(a.epochs), "--python", a.python]
    with tempfile.TemporaryDirectory() as tmp:
        grid = sweep(a.mlpwb, tmp, "grid", "method: grid\n" + SPACE + GRID_LR, base)
        reference = min(v for v in grid if v is not None)
        target = reference * 1.01
        rows = []
        for seed in range(1, a.searches + 1):
            row = {"seed": seed}
            for method in ("random", "bayes"):
                text = f"method: {method}\nrun_cap: {a.run_cap}\nseed: {seed}\n" + SPACE + DRAWN_LR
                losses = sweep(a.mlpwb, tmp, f"{method}{seed}", text, base)
                row[method] = trials_to_reach(losses, target, a.run_cap)
                row[method + "_best"] = min(v for v in losses if v is not None)
            rows.append(row)
    print(f"Grid (36 trials): best val_loss {reference:.5f}; target (within 1 %): {target:.5f}\n")
    print("| search seed | random: trials to target | random: best | bayes: trials to target | bayes: best |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['seed']} | {r['random']} | {r['random_best']:.5f} | {r['bayes']} | {r['bayes_best']:.5f} |")
    print(f"| median | {statistics.median(r['random'] for r in rows)} | | "
          f"{statistics.median(r['bayes'] for r in rows)} | |")
    print(f"\n({a.run_cap + 1} = not reached in {a.run_cap} trials)")


if __name__ == "__main__":
    main()
