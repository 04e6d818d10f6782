#!/usr/bin/env python3
"""Hyperband early termination against the full grid it prunes (issue: sweeps that spend their time
on the trials that matter).

The 27-point grid of docs/sweeps/hyperband-lr-wd.yaml (9 learning rates x 3 weight decays) on the
founding workload (the built-in data, 61-20-10-1 tanh, Adam, batch 2048, 200 epochs, val_split 0.2):

  full grid  every point trained to its end with `repeats` seeds (the spread over seeds);
  hyperband  the same file (min_iter 3, eta 3), one seed, trials one after another (--jobs 1, so the
             rungs' decisions do not depend on which trial the pool happened to finish first).

Prints, as Markdown for RESULTS.md: the full grid's best point (lowest median val_loss over the
seeds) with its seeds' range, hyperband's best trial, whether that trial is the grid's best point or
lies within the best point's range over seeds, and hyperband's epochs against one seed's full grid
(27 x 200). Epochs, not seconds, are compared: they do not depend on the machine's load.
Standard library only.

    bench/hyperband_bench.py [--mlpwb build/cli/mlpwb] [--repeats 3] [--epochs 200]
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPEC = os.path.join(ROOT, "docs", "sweeps", "hyperband-lr-wd.yaml")


# A sweep whose trial failed (a learning rate that diverges) exits 8: its other trials still count.
def sweep(mlpwb, spec, out, base):
    subprocess.run([mlpwb, "sweep", spec, "--out", out, "--jobs", "1", "--threads", "2"] + base,
                   stdout=subprocess.DEVNULL)
    status = subprocess.run([mlpwb, "sweep", "status", out, "--json"], check=True, capture_output=True, text=True)
    return json.loads(status.stdout)


def point_of(trial):
    p = trial["parameters"]
    return (p["lr"], p["weight_decay"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mlpwb", default=os.path.join(ROOT, "build", "cli", "mlpwb"))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--epochs", type=int, default=200)
    a = ap.parse_args()
    base = ["--builtin", "--val-split", "0.2", "--epochs", str(a.epochs)]
    with open(SPEC) as f:
        text = f.read()
    # The full grid: the same file without early_terminate, each point with `repeats` seeds.
    lines = text.splitlines()
    start = lines.index("early_terminate:")
    full_text = "\n".join(lines[:start] + lines[start + 4:] + [f"repeats: {a.repeats}"]) + "\n"
    with tempfile.TemporaryDirectory() as tmp:
        full_spec = os.path.join(tmp, "full.yaml")
        with open(full_spec, "w") as f:
            f.write(full_text)
        full = sweep(a.mlpwb, full_spec, os.path.join(tmp, "full"), base)
        hb = sweep(a.mlpwb, SPEC, os.path.join(tmp, "hb"), base)

    by_point = {}
    for t in full["trials"]:
        assert t["state"] == "completed", t
        by_point.setdefault(point_of(t), []).append(t["val_loss"])
    best_point = min(by_point, key=lambda p: statistics.median(by_point[p]))
    best_values = by_point[best_point]
    seed0 = {point_of(t): t["val_loss"] for t in full["trials"] if t["repeat"] == 0}

    completed = [t for t in hb["trials"] if t["state"] == "completed"]
    hb_best = min(completed, key=lambda t: t["val_loss"])
    hb_epochs = sum(t["epochs"] for t in hb["trials"])
    grid_epochs = len(seed0) * a.epochs
    states = {}
    for t in hb["trials"]:
        states[t["state"]] = states.get(t["state"], 0) + 1
    stops = {}
    for t in hb["trials"]:
        if t["state"] == "stopped":
            stops[t["stopped_at_epoch"]] = stops.get(t["stopped_at_epoch"], 0) + 1

    within = min(best_values) <= hb_best["val_loss"] <= max(best_values)
    same = point_of(hb_best) == best_point
    print(f"| | lr, weight decay | val_loss |")
    print(f"|---|---|---|")
    print(f"| full grid's best point (median of {a.repeats} seeds) | {best_point[0]}, {best_point[1]} | "
          f"{statistics.median(best_values):.5f} (seeds {min(best_values):.5f} – {max(best_values):.5f}) |")
    print(f"| full grid's best trial of seed 0 | {min(seed0, key=seed0.get)[0]}, {min(seed0, key=seed0.get)[1]} | "
          f"{min(seed0.values()):.5f} |")
    print(f"| hyperband's best trial | {point_of(hb_best)[0]}, {point_of(hb_best)[1]} | {hb_best['val_loss']:.5f} |")
    print()
    print(f"hyperband: {states} trials; stopped at epoch {dict(sorted(stops.items()))}; "
          f"{hb_epochs} of {grid_epochs} epochs ({100 * hb_epochs / grid_epochs:.1f} %); "
          f"its best is the grid's best point: {same}; within that point's range over seeds: {within}; "
          f"reported saved: {hb['early_termination']['saved_epochs']} of {hb['early_termination']['planned_epochs']}")


if __name__ == "__main__":
    main()
