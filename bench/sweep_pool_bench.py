#!/usr/bin/env python3
"""The local sweep engine's pool against running the same trials one after another.

8 trials of a 1-thread configuration (the seed model on the built-in data, seeds 1..8) run twice per
round: with `--jobs 1` (one after another) and with the pool's default (one trial per core), rounds
alternating so both see the same machine. Prints the wall times of each round, their medians and
the ratio pool / one-after-another as Markdown for RESULTS.md. Also checks that both ways give the
same losses, trial by trial (a pool must not change results). Standard library only.

    bench/sweep_pool_bench.py [--mlpwb build/cli/mlpwb] [--rounds 3] [--rows 100000] [--epochs 120]
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

SPEC = """name: pool-bench
method: grid
metric: {name: train_loss, goal: minimize}
parameters:
  seed: {values: [1, 2, 3, 4, 5, 6, 7, 8]}
"""


def run_sweep(mlpwb, spec, out, base, jobs):
    args = [mlpwb, "sweep", spec, "--out", out, "--threads", "1"] + base
    if jobs:
        args += ["--jobs", str(jobs)]
    start = time.monotonic()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.monotonic() - start
    status = json.loads(subprocess.run([mlpwb, "sweep", "status", out, "--json"], check=True,
                                       capture_output=True, text=True).stdout)
    states = {t["state"] for t in status["trials"]}
    assert states == {"completed"}, states
    return wall, [t["train_loss"] for t in status["trials"]], status["trials"][0]["timing"]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mlpwb", default="build/cli/mlpwb")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--rows", type=int, default=100000)
    p.add_argument("--epochs", type=int, default=120)
    a = p.parse_args()
    base = ["--builtin", "--rows", str(a.rows), "--epochs", str(a.epochs)]
    serial, pooled = [], []
    with tempfile.TemporaryDirectory() as tmp:
        spec = os.path.join(tmp, "pool.yaml")
        with open(spec, "w") as f:
            f.write(SPEC)
        for r in range(a.rounds):
            s_wall, s_losses, s_timing = run_sweep(a.mlpwb, spec, os.path.join(tmp, f"serial{r}"), base, 1)
            p_wall, p_losses, p_timing = run_sweep(a.mlpwb, spec, os.path.join(tmp, f"pool{r}"), base, None)
            assert s_losses == p_losses, "the pool changed a result"
            serial.append(s_wall)
            pooled.append(p_wall)
    ms, mp = statistics.median(serial), statistics.median(pooled)
    print(f"`{' '.join(['bench/sweep_pool_bench.py'] + [f'--rounds {a.rounds}', f'--rows {a.rows}', f'--epochs {a.epochs}'])}`"
          f" on {os.cpu_count()} cores: 8 trials of `mlpwb train {' '.join(base)} --threads 1 --seed 1..8`\n")
    print("| way | wall time per round (s) | median (s) | timing marked in the trials |")
    print("| --- | --- | --- | --- |")
    print(f"| one after another (`--jobs 1`) | {', '.join(f'{w:.2f}' for w in serial)} | {ms:.2f} | {s_timing} |")
    print(f"| the pool (default) | {', '.join(f'{w:.2f}' for w in pooled)} | {mp:.2f} | {p_timing} |")
    print(f"\npool / one after another: **{mp / ms:.2f}x** (goal <= 0.6x); the losses equal trial by trial")


if __name__ == "__main__":
    main()
