#!/usr/bin/env python3
"""CPU speed at 1, 2 and all threads: mlpwb's CPU backend against JAX jit+scan and PyTorch 2 eager.

  python3 bench/cpu_bench.py [--build build] [--repeats 3] [--threads 1,2,all] [--smoke]

Workloads (the built-in 100,000 x 61 rows exported once as .npy, so every program trains on the
same rows; Adam 1e-3, batch 2048, no shuffling, no standardisation):
  seed  61->20->10->1 tanh      gelu  61->64->32->1 gelu      wide  61->256->128->1 tanh
  (and on request, --workloads seed,seed-gelu: the seed model with gelu, for gelu's cost over tanh)
For each workload and thread count T, in one run and interleaved (a slow spell of the machine hits
everyone): mlpwb train --threads T; JAX jit+scan pinned to T CPUs (bench/peers/jax_scan.py); PyTorch
2 eager with T intra-op threads (bench/peers/torch_eager.py). Both peers run the loop `mlpwb export`
generates, in the peers' venv ($WB_PEER_PYTHON, default .venv/bin/python; a peer whose framework
is missing is shown as skipped). A run's figure is its median epoch time without the warm-up epoch;
the table shows the median over repeats, the peers' ratio to mlpwb, and mlpwb's speed-up over its
own 1-thread figure. Prints a Markdown table for bench/RESULTS.md; RunRecords land in
bench/out/cpu_bench/. --smoke: 20,000 rows, few epochs, one repeat: checks the script, times nothing.
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

WORKLOADS = {  # name -> (hidden widths, activation)
    "seed": ("20,10", "tanh"),
    "gelu": ("64,32", "gelu"),
    "wide": ("256,128", "tanh"),
    "seed-gelu": ("20,10", "gelu"),  # not run by default: the seed model with gelu, against "seed"
}
DEFAULT_WORKLOADS = "seed,gelu,wide"
PEERS = {"JAX jit+scan": "jax_scan.py", "PyTorch 2 eager": "torch_eager.py"}


def run(cmd, env=None):
    """Runs cmd; returns None when it printed "SKIP:" (a peer without its framework)."""
    print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if "SKIP:" in done.stdout:
        print("  " + done.stdout.strip().splitlines()[-1], file=sys.stderr)
        return None
    if done.returncode != 0:
        raise SystemExit(f"failed ({done.returncode}): {' '.join(cmd)}\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return done.stdout


def median_epoch_ms(path):
    record = json.load(open(path))
    if record["status"] != "completed":
        raise SystemExit(f"{path}: run {record['status']}: {record.get('message')}")
    return record["summary"]["median_epoch_ms"], record["summary"]["final"]["train_loss"]


def cpu_name():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def thread_counts(spec):
    counts = []
    for item in spec.split(","):
        n = os.cpu_count() if item == "all" else int(item)
        if n not in counts:
            counts.append(n)
    return counts


def commands(args, mlpwb, data, labels, workload, threads):
    """program name -> function(out_path) -> command line, for one workload and thread count."""
    hidden, activation = WORKLOADS[workload]
    common = ["--data", data, "--labels", labels, "--batch-size", "2048"]
    progs = {"mlpwb cpu": lambda out: [mlpwb, "train", *common, "--no-standardize", "--quiet", "--layers", hidden,
                                       "--activation", activation, "--epochs", str(args.epochs_ours),
                                       "--threads", str(threads), "--out", out]}
    for name, script in PEERS.items():
        progs[name] = (lambda script: lambda out: [args.peer_python, os.path.join(HERE, "peers", script), *common,
                                                   "--hidden", hidden, "--activation", activation,
                                                   "--epochs", str(args.epochs_peers), "--threads", str(threads),
                                                   "--device", "cpu", "--out", out])(script)
    return progs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--peer-python", default=os.environ.get("WB_PEER_PYTHON", os.path.join(ROOT, ".venv", "bin", "python")))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rows", type=int, default=100000)
    parser.add_argument("--threads", default="1,2,all", help="comma-separated thread counts; 'all' = every CPU")
    parser.add_argument("--workloads", default=DEFAULT_WORKLOADS, help="comma-separated, of " + ",".join(WORKLOADS))
    parser.add_argument("--epochs-ours", type=int, default=30)
    parser.add_argument("--epochs-peers", type=int, default=10)
    parser.add_argument("--smoke", action="store_true", help="20,000 rows, 3 epochs, 1 repeat: checks the script only")
    args = parser.parse_args()
    if args.smoke:
        args.rows, args.repeats, args.epochs_ours, args.epochs_peers = 20000, 1, 3, 3

    mlpwb = os.path.abspath(os.path.join(args.build, "cli", "mlpwb"))
    env = dict(os.environ, WB_MLPWB=mlpwb)  # the peers run this workbench's exported loop
    os.environ.update(env)
    out_dir = os.path.join(HERE, "out", "cpu_bench")
    os.makedirs(out_dir, exist_ok=True)
    prefix = os.path.join(out_dir, "data")
    run([mlpwb, "dataset", "--builtin", "--rows", str(args.rows), "--npy-out", prefix])
    cases = [(w, t) for w in args.workloads.split(",") for t in thread_counts(args.threads)]

    results = {}  # (workload, threads, program) -> [(ms, final loss)]
    for repeat in range(args.repeats):
        for workload, threads in cases:
            progs = commands(args, mlpwb, prefix + "_x.npy", prefix + "_y.npy", workload, threads)
            for name, command in progs.items():
                out = os.path.join(out_dir, f"{workload}_t{threads}_{name.split()[0]}_{repeat}.json")
                if run(command(out)) is not None:
                    results.setdefault((workload, threads, name), []).append(median_epoch_ms(out))

    def median(key):
        runs = results.get(key)
        return statistics.median(r[0] for r in runs) if runs else None

    print(f"\nMachine: {cpu_name()}, {os.cpu_count()} hardware threads; {args.rows} x 61 rows, batch 2048, "
          f"medians of {args.repeats} runs (each run: median epoch without warm-up), peers in the same run\n")
    print("| workload | threads | mlpwb ms | mlpwb vs its 1 thread | JAX ms | JAX / mlpwb | PyTorch 2 ms | PyTorch / mlpwb |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    one = thread_counts(args.threads)[0]
    for workload, threads in cases:
        ours = median((workload, threads, "mlpwb cpu"))
        base = median((workload, one, "mlpwb cpu"))
        cells = [workload, str(threads), f"{ours:.2f}", f"{base / ours:.2f}x"]
        for name in PEERS:
            peer = median((workload, threads, name))
            cells += [f"{peer:.2f}", f"{peer / ours:.2f}x"] if peer else ["skipped", "-"]
        print("| " + " | ".join(cells) + " |")
    json.dump({f"{w}/{t}/{n}": runs for (w, t, n), runs in results.items()},
              open(os.path.join(out_dir, "summary.json"), "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
