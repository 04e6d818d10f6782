#!/usr/bin/env python3
"""GPU speed of the seed workload: mlpwb's CUDA presets against the PyTorch/JAX peers, in one run.

  python3 bench/gpu_bench.py --mlpwb build-gpu/cli/mlpwb [--device 0] [--out-dir DIR]
                             [--summary FILE.json] [--budget-seconds 240]
                             [--programs 'Fastest,torch_compile,...' | --exclude ...] [--no-scale]
                             [--no-larger-than-gpu] [--timeout 120] [--compile-timeout 260]

The seed workload: the built-in 100,000 x 61 data set (exported once as .npy, so every program
trains on the same rows), 61->20->10->1 tanh, Adam 1e-3, batch 2048, no shuffling. Programs:
  * mlpwb --backend cuda with each preset (Seed PyTorch loop, Seed answer's fixes, Static graph,
    Fastest: one resident kernel per epoch) and "Fused step" (Fastest with launch=fused, a kernel per
    step), run twice, interleaved;
  * the peers in bench/peers/ that exist here (torch_compile, jax_scan, torch_resident,
    torch_cuda_graph, torch_dataloader: the slow DataLoader loop last), all with --device cuda; a peer
    that prints "SKIP: ..." is listed as skipped with its reason; --programs picks some, in its order
    (scripts/gpu-check.sh runs the decisive ones first), --exclude leaves some out;
  * scale: the Fastest and Static graph presets on 10^4 ... 10^7 built-in rows (per-sample time);
  * larger than the GPU: with all but 1.5 GiB of the device held by bench/hold_gpu_memory.py, the
    Fastest preset with launch=fused on 10^7 rows (2.5 GB) through data_path=pinned_async, and
    device_resident, which must fail for want of memory.
A run's figure is its median epoch time without the warm-up epoch (the RunRecord's summary). Every
command has a timeout and the whole benchmark a time budget: what does not fit is listed as
skipped. Without a CUDA device (mlpwb info) it says so and runs the CPU part only (the Fastest
preset's switches on the CPU backend, a few epochs), so the script is checked end to end anywhere.
Writes the RunRecords to --out-dir, a JSON summary to --summary, and prints a Markdown table. The
exported data set (24 MB of .npy) lives in a temporary folder, removed at the end, so --out-dir holds
only small files (the device tool brings back at most 8 files of 16 MiB).
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# The DataLoader loop last: it is the slowest and decides nothing (the speed goal is against the others).
PEERS = ("torch_compile", "jax_scan", "torch_resident", "torch_cuda_graph", "torch_dataloader")
PRESETS = ("Seed PyTorch loop", "Seed answer's fixes", "Static graph (Keras-like)", "Fastest")
# A preset with switches changed: the kernel-per-step fused path next to Fastest (one kernel per epoch).
VARIANTS = {"Fused step": ("Fastest", ["--launch", "fused"])}
MLPWB_PROGRAMS = PRESETS + tuple(VARIANTS)
SLOW = ("Seed PyTorch loop", "torch_dataloader")  # per-sample gathering: fewer epochs


class Budget:
    def __init__(self, seconds):
        self.end = time.monotonic() + seconds

    def left(self):
        return self.end - time.monotonic()


def run(cmd, timeout):
    """(exit code or None on timeout, stdout + stderr)."""
    print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    try:
        done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return None, out
    return done.returncode, done.stdout


def record_figures(path):
    """(median epoch ms, final train loss, epochs) of a completed RunRecord, or raises ValueError."""
    with open(path) as f:
        record = json.load(f)
    if record.get("status") != "completed":
        raise ValueError(f"run {record.get('status')}: {record.get('message')}")
    summary = record["summary"]
    return summary["median_epoch_ms"], summary["final"]["train_loss"], len(record["epochs"])


def attempt(name, cmd, out, budget, timeout):
    """Runs one program; returns a result dict (status ok | skipped | failed)."""
    result = {"program": name, "command": cmd}
    if budget.left() < 5:
        return {**result, "status": "skipped", "reason": "time budget spent"}
    code, text = run(cmd, min(timeout, max(5.0, budget.left())))
    skip = re.search(r"^SKIP: (.*)$", text, re.MULTILINE)
    if skip:
        return {**result, "status": "skipped", "reason": skip.group(1)}
    if code is None:
        return {**result, "status": "failed", "reason": f"timed out after {timeout:.0f} s", "output": text[-1500:]}
    if code != 0:
        return {**result, "status": "failed", "reason": f"exit {code}", "output": text[-1500:]}
    try:
        ms, loss, epochs = record_figures(out)
    except (OSError, ValueError, KeyError) as e:
        return {**result, "status": "failed", "reason": str(e), "output": text[-1500:]}
    return {**result, "status": "ok", "median_epoch_ms": ms, "final_loss": loss, "epochs": epochs, "record": out}


def cuda_reason(mlpwb, device):
    """None when mlpwb reports a usable CUDA device, else why not."""
    code, text = run([mlpwb, "info"], 60)
    if code != 0:
        return f"mlpwb info failed: {text.strip()[-300:]}"
    match = re.search(r"^cuda\s+(available|unavailable):\s*(.*)$", text, re.MULTILINE)
    if not match:
        return "mlpwb reports no cuda backend"
    if match.group(1) == "unavailable":
        return match.group(2)
    devices = re.search(r"^\s+devices:\s*(\d+)", text, re.MULTILINE)
    if devices and device >= int(devices.group(1)):
        return f"no CUDA device {device}"
    return None


def selection(args):
    """(the programs of --programs in order, or None for all; the set of --exclude), names checked."""
    wanted = [p.strip() for p in args.programs.split(",") if p.strip()] if args.programs else None
    excluded = {p.strip() for p in args.exclude.split(",") if p.strip()}
    for name in (wanted or []) + sorted(excluded):
        if name not in MLPWB_PROGRAMS + PEERS:
            raise SystemExit(f"unknown program '{name}' (known: {', '.join(MLPWB_PROGRAMS + PEERS)})")
    return wanted, excluded


def median_of(results, name):
    times = [r["median_epoch_ms"] for r in results if r["program"] == name and r["status"] == "ok"]
    return statistics.median(times) if times else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mlpwb", required=True)
    parser.add_argument("--device", type=int, default=0)
    parser.add_argument("--out-dir", default=os.path.join(HERE, "out", "gpu_bench"))
    parser.add_argument("--summary", default=None, help="JSON summary (default OUT_DIR/summary.json)")
    parser.add_argument("--budget-seconds", type=float, default=240)
    parser.add_argument("--rows", type=int, default=100000)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=100, help="epochs of the fast programs")
    parser.add_argument("--epochs-slow", type=int, default=6, help="epochs of the per-sample-gathering ones")
    parser.add_argument("--big-rows", type=int, default=10**7, help="rows of the larger-than-the-GPU run")
    parser.add_argument("--leave-mib", type=int, default=1536,
                        help="device memory left free for the larger-than-the-GPU run")
    parser.add_argument("--programs", default=None,
                        help="comma-separated programs to run, in this order: preset names (Fastest, "
                             "'Static graph (Keras-like)', ...) and peer names (torch_compile, jax_scan, ...); "
                             "default all")
    parser.add_argument("--exclude", default="", help="comma-separated programs to leave out")
    parser.add_argument("--no-scale", action="store_true", help="skip the 10^4..10^7 rows scale runs")
    parser.add_argument("--no-larger-than-gpu", action="store_true", help="skip the larger-than-the-GPU run")
    parser.add_argument("--timeout", type=float, default=120, help="seconds per program (default 120)")
    parser.add_argument("--compile-timeout", type=float, default=260,
                        help="seconds for torch_compile, whose warm-up epoch compiles (default 260: ~200 s warm-up)")
    parser.add_argument("--python", default=sys.executable,
                        help="the interpreter of the peers (torch, jax); default this one")
    args = parser.parse_args()
    selection(args)  # an unknown program name fails here, with or without a device

    budget = Budget(args.budget_seconds)
    os.makedirs(args.out_dir, exist_ok=True)
    summary_path = args.summary or os.path.join(args.out_dir, "summary.json")
    mlpwb = os.path.abspath(args.mlpwb)
    os.environ["WB_MLPWB"] = mlpwb  # the torch peers run this workbench's exported loop
    with tempfile.TemporaryDirectory(prefix="gpu_bench_") as data_dir:
        return run_all(args, budget, summary_path, mlpwb, os.path.join(data_dir, "seed"))


def run_all(args, budget, summary_path, mlpwb, prefix):
    """Every program on the data set exported to PREFIX_x.npy / PREFIX_y.npy."""
    code, text = run([mlpwb, "dataset", "--builtin", "--rows", str(args.rows), "--npy-out", prefix], 300)
    if code != 0:
        raise SystemExit(f"could not export the data set: {text[-1000:]}")
    data = ["--data", prefix + "_x.npy", "--labels", prefix + "_y.npy", "--batch-size", "2048"]

    reason = cuda_reason(mlpwb, args.device)
    summary = {"schema": "mlpwb.gpu_bench/1", "rows": args.rows, "device": args.device, "gpu": None,
               "cuda_unavailable": reason, "results": [], "scale": [], "ratios": {}}
    if reason:
        print(f"no device: CUDA unavailable: {reason}; running the CPU part only")
        out = os.path.join(args.out_dir, "cpu_fastest.json")
        cmd = [mlpwb, "train", *data, "--quiet", "--epochs", "3", "--preset", "Fastest", "--backend", "cpu",
               "--out", out]
        summary["results"].append(attempt("mlpwb cpu: Fastest switches", cmd, out, budget, 120))
        return finish(summary, summary_path)

    gpu = re.search(r"^cuda\s+available:\s*(.*)$", run([mlpwb, "info"], 60)[1], re.MULTILINE)
    summary["gpu"] = gpu.group(1) if gpu else None
    programs = {}
    wanted, excluded = selection(args)
    for name in MLPWB_PROGRAMS:
        preset, switches = VARIANTS.get(name, (name, []))
        epochs = args.epochs_slow if name in SLOW else args.epochs
        programs[f"mlpwb cuda: {name}"] = lambda out, p=preset, s=switches, e=epochs: [
            mlpwb, "train", *data, "--no-standardize", "--quiet", "--backend", "cuda", "--device", str(args.device), "--preset", p,
            *s, "--epochs", str(e), "--out", out]
    for peer in PEERS:
        script = os.path.join(HERE, "peers", peer + ".py")
        if not os.path.exists(script):
            summary["results"].append({"program": peer, "status": "skipped", "reason": "not in bench/peers"})
            continue
        epochs = args.epochs_slow if peer in SLOW else min(args.epochs, 50)
        programs[peer] = lambda out, s=script, e=epochs: [
            args.python, s, *data, "--device", "cuda", "--epochs", str(e), "--out", out]

    def key(name):  # "mlpwb cuda: Fastest" -> "Fastest"
        return name[len("mlpwb cuda: "):] if name.startswith("mlpwb cuda: ") else name
    if wanted is not None:
        programs = {n: programs[n] for w in wanted for n in programs if key(n) == w}
    programs = {n: c for n, c in programs.items() if key(n) not in excluded}

    def one_round(repeat):  # every program once, interleaved, so a slow spell of the machine hits everyone
        for i, (name, command) in enumerate(programs.items()):
            out = os.path.join(args.out_dir, f"run{i}_{repeat}.json")
            timeout = args.compile_timeout if name == "torch_compile" else args.timeout
            summary["results"].append(attempt(name, command(out), out, budget, timeout))
            finish_partial(summary, summary_path)  # a kill keeps what was done

    one_round(0)
    exported = ExportedData(mlpwb, os.path.dirname(prefix))
    if not args.no_scale:
        scale(summary, mlpwb, args, budget, exported)
    if not args.no_larger_than_gpu:
        larger_than_gpu(summary, mlpwb, args, budget, exported)
    for repeat in range(1, args.repeats):  # the repeats last: with too little time, the scale runs matter more
        one_round(repeat)
    compare(summary)
    return finish(summary, summary_path)


class ExportedData:
    """The built-in rows exported once per size as .npy in DIR: generating 10^7 rows takes ~25 s (one
    random stream, row after row), loading them ~2 s, and four runs train on them."""

    def __init__(self, mlpwb, directory):
        self.mlpwb, self.directory, self.done = mlpwb, directory, {}

    def flags(self, rows, budget):
        """The data flags of `rows` built-in rows: the exported files, else --builtin when the export
        failed or rows is small (generated faster than written)."""
        if rows < 10**6:
            return ["--builtin", "--rows", str(rows)]
        if rows not in self.done:
            prefix = os.path.join(self.directory, f"builtin_{rows}")
            code, text = run([self.mlpwb, "dataset", "--builtin", "--rows", str(rows), "--npy-out", prefix],
                             min(300, max(5.0, budget.left())))
            self.done[rows] = ["--data", prefix + "_x.npy", "--labels", prefix + "_y.npy"] if code == 0 else None
            if code != 0:
                print(f"export of {rows} rows failed ({code}): {text[-300:]}", file=sys.stderr)
        return self.done[rows] or ["--builtin", "--rows", str(rows)]


def scale(summary, mlpwb, args, budget, exported):
    """The per-sample time of the persistent (Fastest) and graph paths from 10^4 to 10^7 rows."""
    for rows in (10**4, 10**5, 10**6, 10**7):
        for preset in ("Fastest", "Static graph (Keras-like)"):
            out = os.path.join(args.out_dir, f"scale_{rows}_{preset.split()[0]}.json")
            cmd = [mlpwb, "train", *exported.flags(rows, budget), "--quiet", "--backend", "cuda", "--device",
                   str(args.device), "--preset", preset, "--epochs", "4", "--out", out]
            r = attempt(f"scale {preset} {rows}", cmd, out, budget, 150)
            if r["status"] == "ok":
                r["ns_per_sample"] = r["median_epoch_ms"] * 1e6 / rows
            summary["scale"].append({**r, "rows": rows, "preset": preset})


def larger_than_gpu(summary, mlpwb, args, budget, exported):
    """A data set larger than the GPU's free memory trains through pinned_async: bench/hold_gpu_memory.py
    holds all but --leave-mib of the device, then the Fastest preset on its kernel-per-step path
    (launch=fused: the persistent kernel reads every row from device memory) trains 10^7 rows (2.5 GB)
    with data_path=pinned_async, and the same with device_resident must fail for want of memory (the
    proof that the rows did not fit). Both RunRecords carry the free memory at setup and the data's size."""
    entry = {"rows": args.big_rows, "leave_mib": args.leave_mib}
    summary["larger_than_gpu"] = entry
    if budget.left() < 60:
        entry.update(status="skipped", reason="time budget spent")
        return
    ready = os.path.join(args.out_dir, "held_memory.json")
    holder = subprocess.Popen([sys.executable, os.path.join(HERE, "hold_gpu_memory.py"), "--device",
                               str(args.device), "--leave-mib", str(args.leave_mib), "--ready-file", ready],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 60
        while not os.path.exists(ready) and holder.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        if not os.path.exists(ready):
            out = holder.stdout.read() if holder.poll() is not None else "no answer in 60 s"
            entry.update(status="skipped", reason=f"could not hold the GPU's memory: {out.strip()[-300:]}")
            return
        with open(ready) as f:
            entry["held"] = json.load(f)
        for data_path in ("pinned_async", "device_resident"):
            out = os.path.join(args.out_dir, f"larger_than_gpu_{data_path}.json")
            cmd = [mlpwb, "train", *exported.flags(args.big_rows, budget), "--quiet", "--backend", "cuda",
                   "--device", str(args.device), "--preset", "Fastest", "--launch", "fused", "--data-path", data_path,
                   "--epochs", "3", "--out", out]
            entry[data_path] = attempt(f"larger than the GPU: {data_path}", cmd, out, budget, 150)
            entry[data_path]["environment"] = record_environment(out)
    finally:
        holder.terminate()
        holder.wait(timeout=30)
    trained = entry["pinned_async"]["status"] == "ok"
    message = entry["device_resident"].get("reason", "") + entry["device_resident"].get("output", "")
    refused = entry["device_resident"]["status"] == "failed" and "memory" in message.lower()
    entry["status"] = "ok" if trained and refused else "failed"
    if trained and not refused:
        entry["reason"] = "device_resident did not run out of memory: the rows fitted, so this proves nothing"
    elif not trained:
        entry["reason"] = "pinned_async did not train: " + entry["pinned_async"].get("reason", "")
    # The expected out-of-memory failure is this check's evidence, not a failure of the benchmark.
    entry["device_resident"]["expected"] = "out of device memory"


def record_environment(path):
    """The GPU memory facts of a RunRecord, or {} when there is none."""
    try:
        with open(path) as f:
            env = json.load(f).get("environment", {})
    except (OSError, ValueError):
        return {}
    return {k: env[k] for k in ("gpu_free_memory_gib_at_setup", "training_data_gib") if k in env}


def compare(summary):
    """The decisive ratios (ours against each peer), where both sides ran."""
    persistent = median_of(summary["results"], "mlpwb cuda: Fastest")
    fused = median_of(summary["results"], "mlpwb cuda: Fused step")
    for peer in ("torch_resident", "torch_compile", "torch_cuda_graph", "jax_scan"):
        other = median_of(summary["results"], peer)
        for path, ours in (("fused", fused), ("persistent", persistent)):
            if ours and other:
                summary["ratios"][f"{path}_speedup_vs_{peer}"] = other / ours
    seed, loader = median_of(summary["results"], "mlpwb cuda: Seed PyTorch loop"), median_of(summary["results"],
                                                                                           "torch_dataloader")
    if seed and loader:
        summary["ratios"]["seed_loop_over_torch_dataloader"] = seed / loader
    summary["fused_median_epoch_ms"] = fused
    summary["persistent_median_epoch_ms"] = persistent


def finish_partial(summary, path):
    """The summary as it stands, written atomically (no table)."""
    with open(path + ".tmp", "w") as f:
        json.dump(summary, f, indent=1)
    shutil.move(path + ".tmp", path)


def finish(summary, path):
    with open(path + ".tmp", "w") as f:
        json.dump(summary, f, indent=1)
    shutil.move(path + ".tmp", path)
    print(f"\nGPU: {summary['gpu'] or 'none'}; {summary['rows']} x 61, batch 2048; "
          "each figure the median epoch without warm-up, median over runs\n")
    print("| program | runs | median epoch ms | final loss | status |")
    print("| --- | ---: | ---: | ---: | --- |")
    names = list(dict.fromkeys(r["program"] for r in summary["results"]))
    for name in names:
        runs = [r for r in summary["results"] if r["program"] == name]
        ok = [r for r in runs if r["status"] == "ok"]
        if ok:
            ms = statistics.median(r["median_epoch_ms"] for r in ok)
            print(f"| {name} | {len(ok)} | {ms:.3f} | {ok[-1]['final_loss']:.4f} | ok |")
        else:
            print(f"| {name} | 0 | - | - | {runs[-1]['status']}: {runs[-1].get('reason', '')} |")
    for s in summary["scale"]:
        if s["status"] == "ok":
            print(f"scale: {s['preset']} {s['rows']} rows: {s['median_epoch_ms']:.3f} ms/epoch, "
                  f"{s['ns_per_sample']:.2f} ns/sample")
    for key, value in summary["ratios"].items():
        print(f"ratio {key}: {value:.2f}")
    big = summary.get("larger_than_gpu")
    if big:
        print(f"larger than the GPU ({big['rows']} rows, {big['leave_mib']} MiB left free): {big['status']}"
              f"{': ' + big['reason'] if big.get('reason') else ''}")
        for data_path in ("pinned_async", "device_resident"):
            r = big.get(data_path)
            if r:
                ms = f", {r['median_epoch_ms']:.1f} ms/epoch" if r["status"] == "ok" else f": {r.get('reason', '')}"
                print(f"  {data_path}: {r['status']}{ms} {r.get('environment', {})}")
    failed = [r for r in summary["results"] + summary["scale"] if r["status"] == "failed"]
    if big and big["status"] == "failed":
        failed.append({"program": "larger than the GPU", "reason": big.get("reason")})
    for r in failed:
        print(f"FAILED {r['program']}: {r.get('reason')}", file=sys.stderr)
    print(f"summary: {path}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
