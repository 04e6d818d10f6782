#!/usr/bin/python3
"""Real data sets beyond yes/no: scikit-learn's iris, wine, digits and diabetes trained by mlpwb's CPU
backend and by PyTorch on the same protocol, the validation figures side by side.

  /usr/bin/python3 bench/sklearn_bench.py [--build build] [--repeats 3] [--backends cpu,torch]
                                          [--torch-python /usr/bin/python3] [--epochs 200]

Needs Debian's python3-sklearn (`apt-get install python3-sklearn`: the four data sets ship inside
it, nothing is downloaded) under the interpreter that runs this script -- Debian's /usr/bin/python3,
not another python3 first on PATH -- and, for the torch column, Debian's PyTorch (python3-torch)
under --torch-python.

Each data set is written once as a CSV (features + the label column: iris and wine with their class
names as text, digits as the numbers 0-9, diabetes as its numeric target). Every run is
`mlpwb train --data X.csv --val-split 0.2 --shuffle --epochs E --batch-size 32 --seed S` with the
task `auto` decides (iris, wine, digits: multiclass) or `--task regression` (diabetes), tanh hidden
layers (32,16; digits 64,32), Adam lr 1e-3; `--backend torch` trains the same configuration in
PyTorch's own loop from the same split, standardisation and initial weights. A data set's figure
is the median over seeds 1..repeats of the last epoch's validation accuracy (classification) or
validation R^2 and MAE in the target's units (regression), with the median epoch time. Prints a
Markdown table for bench/RESULTS.md; RunRecords land in bench/out/sklearn/.
"""

import argparse
import csv
import json
import os
import platform
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# name -> (loader, hidden widths, extra mlpwb flags, label as text)
DATASETS = {
    "iris": ("load_iris", "32,16", [], True),
    "wine": ("load_wine", "32,16", [], True),
    "digits": ("load_digits", "64,32", [], False),
    "diabetes": ("load_diabetes", "32,16", ["--task", "regression"], False),
}


def write_csv(name, path):
    """The data set as a CSV: its feature names, then the label column `target`."""
    from sklearn import datasets  # python3-sklearn: imported here so --help works without it
    loader, _, _, text = DATASETS[name]
    bunch = getattr(datasets, loader)()
    names = list(getattr(bunch, "feature_names", [])) or [f"x{i}" for i in range(bunch.data.shape[1])]
    with open(path, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow([str(n).replace(" ", "_") for n in names] + ["target"])
        for row, y in zip(bunch.data, bunch.target):
            label = bunch.target_names[int(y)] if text else (int(y) if float(y).is_integer() else float(y))
            out.writerow([repr(float(v)) for v in row] + [label])
    return bunch.data.shape


def train(args, name, data, backend, seed):
    """One run; returns its RunRecord."""
    _, hidden, extra, _ = DATASETS[name]
    out = os.path.join(args.out_dir, f"{name}-{backend}-seed{seed}.json")
    cmd = [args.mlpwb, "train", "--data", data, "--val-split", "0.2", "--shuffle", "--epochs", str(args.epochs),
           "--batch-size", "32", "--seed", str(seed), "--layers", hidden, "--activation", "tanh",
           "--optimizer", "adam", "--lr", "1e-3", "--backend", backend, "--quiet", "--out", out, *extra]
    if backend == "torch":
        cmd += ["--python", args.torch_python]
    print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise SystemExit(f"failed ({done.returncode}): {' '.join(cmd)}\n{done.stdout[-1500:]}{done.stderr[-1500:]}")
    record = json.load(open(out))
    if record["status"] != "completed":
        raise SystemExit(f"{out}: run {record['status']}: {record.get('message')}")
    return record


def figures(record):
    """(validation quality text, numbers for the median, median epoch ms) of one record."""
    final = record["summary"]["final"]
    if record["dataset"].get("task") == "regression":
        return (final["val_r2"], final["val_mae"]), record["summary"]["median_epoch_ms"]
    return (final["val_accuracy"],), record["summary"]["median_epoch_ms"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--epochs", type=int, default=200)
    parser.add_argument("--backends", default="cpu,torch")
    parser.add_argument("--torch-python", default="/usr/bin/python3")
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--out-dir", default=os.path.join(HERE, "out", "sklearn"))
    args = parser.parse_args()
    args.mlpwb = os.path.join(args.build, "cli", "mlpwb")
    os.makedirs(args.out_dir, exist_ok=True)
    backends = args.backends.split(",")

    rows = []
    for name in args.datasets.split(","):
        data = os.path.join(args.out_dir, f"{name}.csv")
        shape = write_csv(name, data)
        results = {}
        for backend in backends:
            per_seed = [figures(train(args, name, data, backend, seed)) for seed in range(1, args.repeats + 1)]
            quality = [statistics.median(q[i] for q, _ in per_seed) for i in range(len(per_seed[0][0]))]
            results[backend] = (quality, statistics.median(ms for _, ms in per_seed))
        rows.append((name, shape, results))

    print(f"\nMachine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs; "
          f"{args.epochs} epochs, batch 32, val split 0.2, medians over seeds 1..{args.repeats}\n")
    header = "| data set | rows x features | task | " + " | ".join(
        f"{b}: validation | {b}: ms/epoch" for b in backends) + " |"
    print(header)
    print("|" + " --- |" * (3 + 2 * len(backends)))
    for name, shape, results in rows:
        task = "regression" if DATASETS[name][2] else "multiclass"
        cells = []
        for b in backends:
            quality, ms = results[b]
            text = (f"R² {quality[0]:.3f}, MAE {quality[1]:.1f}" if len(quality) == 2 else f"accuracy {quality[0]:.3f}")
            cells += [text, f"{ms:.2f}"]
        print(f"| {name} | {shape[0]} x {shape[1]} | {task} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
