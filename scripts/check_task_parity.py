#!/usr/bin/env python3
"""Multiclass and regression against PyTorch's numbers through the mlpwb binary, on any backend:

  python3 scripts/check_task_parity.py --mlpwb build/cli/mlpwb [--backend cuda] [--device 0]
                                       [--launches eager,graph_step] [--out-dir DIR]

Trains every case of tests/data/parity_tasks/expected.json (bench/make_task_parity_fixture.py:
softmax cross-entropy in both forms with K = 3 and 10 and with K = 3 class weights, MSE and Huber
regression) with `mlpwb train`
from the fixture's initial weights, once per launch (the CPU backend ignores it: give one), and
compares every epoch's train loss with PyTorch's within 1e-4 relative. Keras and JAX report a
class-weighted epoch's loss as its batches' weighted losses averaged by rows, not as PyTorch's
weighted mean (README), so there the weighted cases compare the final weights instead (within 1e-3,
as tests/tst_task_parity.cpp does). Prints one line per run and "N passed, M failed"; exits 1 when
any failed. Standard library only (scripts/gpu-check.sh runs it on a GPU machine).
"""

import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURE = os.path.join(ROOT, "tests", "data", "parity_tasks")


def command(args, fixture, case, launch, out):
    train = fixture["train"]
    cmd = [args.mlpwb, "train", "--backend", args.backend, "--data", os.path.join(FIXTURE, "x.npy"),
           "--labels", os.path.join(FIXTURE, case["labels"]), "--task", case["task"], "--no-standardize",
           "--layers", ",".join(str(w) for w in fixture["model"]["hidden"]), "--activation", "tanh",
           "--optimizer", "adam", "--lr", str(fixture["optimizer"]["lr"]), "--epochs", str(train["epochs"]),
           "--batch-size", str(train["batch_size"]), "--init-weights", os.path.join(FIXTURE, case["init_weights"]),
           "--zero-grad", "once", "--launch", launch, "--quiet", "--out", out]
    if args.backend == "cuda":
        cmd += ["--device", str(args.device), "--data-path", "device_resident", "--precision", "fp32"]
    if "loss" in case:
        cmd += ["--loss", case["loss"]]
    if "regression_loss" in case:
        cmd += ["--regression-loss", case["regression_loss"]]
    if "class_weights" in case:
        cmd += ["--class-weights", ",".join(repr(w) for w in case["class_weights"])]
    return cmd


def weights_only(args, case):
    """Whether the backend's epoch loss is not comparable for this case (see the docstring)."""
    return args.backend in ("keras", "jax") and "class_weights" in case


def tensors(path):
    """{name: [float, ...]} of a safetensors file of F32 tensors."""
    blob = open(path, "rb").read()
    size = struct.unpack("<Q", blob[:8])[0]
    header = json.loads(blob[8:8 + size])
    data = blob[8 + size:]
    return {name: struct.unpack(f"<{(t['data_offsets'][1] - t['data_offsets'][0]) // 4}f",
                                data[t["data_offsets"][0]:t["data_offsets"][1]])
            for name, t in header.items() if name != "__metadata__"}


def compare_weights(saved, case):
    """'' when every final weight is within 1e-3 of PyTorch's, else the first that is not."""
    want = tensors(os.path.join(FIXTURE, case["final_weights"]))
    ours = tensors(saved)
    for name, values in want.items():
        if name not in ours or len(ours[name]) != len(values):
            return f"final weights: {name} missing or of another shape"
        worst = max(abs(a - b) for a, b in zip(ours[name], values))
        if worst > 1e-3:
            return f"final weights: {name} differs by {worst:.2e}"
    return ""


def check(args, fixture, name, case, launch, out_dir):
    """'' when the run matches PyTorch, else why not."""
    out = os.path.join(out_dir, f"{name}-{launch}.json")
    saved = os.path.join(out_dir, f"{name}-{launch}.safetensors")
    done = subprocess.run(command(args, fixture, case, launch, out) + ["--save-weights", saved],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=args.timeout)
    if done.returncode != 0:
        return f"exit {done.returncode}: {done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ''}"
    if weights_only(args, case):
        return compare_weights(saved, case)
    record = json.load(open(out))
    ours = [e["train_loss"] for e in record["epochs"]]
    want = case["epoch_train_loss"]
    if len(ours) != len(want):
        return f"{len(ours)} epochs, PyTorch {len(want)}"
    for epoch, (a, b) in enumerate(zip(ours, want), 1):
        if a is None or abs(a - b) > 1e-4 * abs(b):
            return f"epoch {epoch}: loss {a} vs PyTorch {b}"
    return ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mlpwb", required=True)
    parser.add_argument("--backend", default="cpu")
    parser.add_argument("--device", type=int, default=0)
    parser.add_argument("--launches", default="eager")
    parser.add_argument("--timeout", type=int, default=120, help="seconds per run")
    parser.add_argument("--out-dir")
    args = parser.parse_args()
    fixture = json.load(open(os.path.join(FIXTURE, "expected.json")))
    out_dir = args.out_dir or tempfile.mkdtemp(prefix="task-parity-")
    os.makedirs(out_dir, exist_ok=True)
    passed = failed = 0
    for name, case in fixture["cases"].items():
        for launch in args.launches.split(","):
            why = check(args, fixture, name, case, launch, out_dir)
            what = " (final weights)" if weights_only(args, case) and not why else ""
            print(f"{'ok    ' if not why else 'FAILED'} {args.backend} {launch:10s} {name}{what}{': ' + why if why else ''}",
                  flush=True)
            passed, failed = (passed + 1, failed) if not why else (passed, failed + 1)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
