#!/usr/bin/env python3
"""CPU speed of the seed workload: mlpwb's CPU backend against the PyTorch peers, in one run.

  /usr/bin/python3 bench/cpu_bench.py [--build build] [--repeats 3] [--rows 100000]

The seed workload: the built-in 100,000 x 61 data set (exported once as .npy, so every program
trains on the same rows), 61->20->10->1 tanh, Adam 1e-3, batch 2048, no shuffling, no
standardisation. Each program runs `--repeats` times, interleaved; a run's figure is its median
epoch time without the warm-up epoch, and the table shows the median over runs (and the spread).
Peers: the founding PyTorch DataLoader loop and PyTorch over resident tensors (Debian's
python3-torch, CPU). Prints a Markdown table for bench/RESULTS.md; run records land in bench/out/.
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PYTHON = "/usr/bin/python3"  # Debian's interpreter, the one with python3-torch


def run(cmd):
    print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0 or "SKIP:" in done.stdout:
        raise SystemExit(f"failed ({done.returncode}): {' '.join(cmd)}\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return done.stdout


def programs(mlpwb, data, labels, epochs):
    """name -> function(out_path) -> command line."""
    common = ["--data", data, "--labels", labels, "--batch-size", "2048"]
    ours = [mlpwb, "train", *common, "--no-standardize", "--quiet", "--epochs", str(epochs["ours"])]
    return {
        "PyTorch (DataLoader)": lambda out: [PYTHON, os.path.join(HERE, "peers", "torch_dataloader.py"), *common,
                                             "--epochs", str(epochs["dataloader"]), "--out", out],
        "PyTorch (resident tensors)": lambda out: [PYTHON, os.path.join(HERE, "peers", "torch_resident.py"), *common,
                                                   "--epochs", str(epochs["resident"]), "--out", out],
        "mlpwb cpu: Seed PyTorch loop": lambda out: ours + ["--preset", "Seed PyTorch loop", "--out", out],
        "mlpwb cpu: fixes (resident, logits, once)": lambda out: ours + ["--out", out],
    }


def summarize(path):
    record = json.load(open(path))
    if record["status"] != "completed":
        raise SystemExit(f"{path}: run {record['status']}: {record.get('message')}")
    summary = record["summary"]
    return summary["median_epoch_ms"], summary["final"]["train_loss"], len(record["epochs"])


def cpu_name():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rows", type=int, default=100000)
    parser.add_argument("--epochs-ours", type=int, default=200)
    parser.add_argument("--epochs-resident", type=int, default=20)
    parser.add_argument("--epochs-dataloader", type=int, default=8)
    args = parser.parse_args()

    mlpwb = os.path.join(args.build, "cli", "mlpwb")
    os.environ["WB_MLPWB"] = os.path.abspath(mlpwb)  # the torch peers run this workbench's exported loop
    out_dir = os.path.join(HERE, "out", "cpu_bench")
    os.makedirs(out_dir, exist_ok=True)
    prefix = os.path.join(out_dir, "seed")
    run([mlpwb, "dataset", "--builtin", "--rows", str(args.rows), "--npy-out", prefix])
    epochs = {"ours": args.epochs_ours, "resident": args.epochs_resident, "dataloader": args.epochs_dataloader}
    progs = programs(mlpwb, prefix + "_x.npy", prefix + "_y.npy", epochs)

    results = {name: [] for name in progs}
    for repeat in range(args.repeats):  # interleaved, so a slow spell of the machine hits everyone
        for i, (name, command) in enumerate(progs.items()):
            out = os.path.join(out_dir, f"run{i}_{repeat}.json")
            run(command(out))
            results[name].append(summarize(out))

    ours = statistics.median(r[0] for r in results["mlpwb cpu: fixes (resident, logits, once)"])
    print(f"\nMachine: {cpu_name()}, {os.cpu_count()} hardware threads; {args.rows} x 61, batch 2048, "
          f"medians of {args.repeats} runs (each run: median epoch without warm-up)\n")
    print("| program | epochs/run | median epoch ms | min-max over runs | x slower than mlpwb | final loss |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name, runs in results.items():
        times = [r[0] for r in runs]
        median = statistics.median(times)
        print(f"| {name} | {runs[0][2]} | {median:.2f} | {min(times):.2f}-{max(times):.2f} | "
              f"{median / ours:.1f} | {runs[-1][1]:.4f} |")
    json.dump({name: runs for name, runs in results.items()}, open(os.path.join(out_dir, "summary.json"), "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
