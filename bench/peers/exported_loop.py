"""Peers that run the workbench's own generated loop: one implementation of each framework's loop.

`mlpwb export` writes the loop the framework backend runs (the same generator); a peer built on this
module asks for it with the switches it measures, runs it on the peer's command line (the one every
peer takes, peer_core.build_arg_parser) and leaves the RunRecord the loop writes. So bench/compare.sh
measures exactly the code `mlpwb train --backend torch` runs and `mlpwb export` hands to users.

The workbench binary: $WB_MLPWB, else build/cli/mlpwb under the repository root.
"""

import importlib.util
import json
import os
import subprocess
import sys
import tempfile

import peer_core

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def mlpwb_path():
    return os.environ.get("WB_MLPWB") or os.path.join(ROOT, "build", "cli", "mlpwb")


def export_command(framework, switches, args):
    """The `mlpwb export` command line for `switches` ({"data_path": "device_resident", ...})."""
    cmd = [mlpwb_path(), "export", "--framework", framework, "--name", args.name,
           "--batch-size", str(args.batch_size), "--seed", str(args.seed), "--lr", repr(args.lr),
           "--layers", ",".join(str(w) for w in args.hidden), "--activation", args.activation,
           "--framework-device", args.device]
    for switch, value in switches.items():
        cmd += ["--" + switch.replace("_", "-"), value]
    return cmd


def thread_env(threads):
    """OMP_NUM_THREADS for PyTorch's intra-op pool (read at import); the environment otherwise."""
    env = dict(os.environ)
    if threads:
        env["OMP_NUM_THREADS"] = str(threads)
    return env


def cpu_mask(threads):
    """A pre-exec hook pinning the loop to `threads` CPUs (XLA and TensorFlow size their pools from
    the affinity mask), or None."""
    if not threads:
        return None
    cpus = sorted(os.sched_getaffinity(0))[:threads]
    return lambda: os.sched_setaffinity(0, cpus)


def loop_command(script, args):
    cmd = [sys.executable, script, "--data", args.data, "--labels", args.labels,
           "--epochs", str(args.epochs), "--device", args.device]
    for flag, value in (("--init-weights", args.init_weights), ("--out", args.out),
                        ("--save-weights", args.save_weights)):
        if value:
            cmd += [flag, value]
    return cmd


def note_threads(record_path, framework, threads):
    """Adds what bench/compare_table.py shows to the loop's RunRecord: the framework and threads."""
    with open(record_path, encoding="utf-8") as f:
        record = json.load(f)
    env = record.setdefault("environment", {})
    env["framework"] = f"{framework} {env.get(framework, '')}".strip()
    env["threads"] = str(threads) if threads else env.get("threads", "")
    peer_core.write_json_atomic(record_path, record)


# What must import, and how the framework says it sees a GPU (the peers' "SKIP:" protocol).
MODULES = {"torch": "torch", "keras": "keras", "jax": "jax"}
SEES_GPU = {
    "torch": "import torch; ok = torch.cuda.is_available()",
    "keras": "import tensorflow as tf; ok = bool(tf.config.list_physical_devices('GPU'))",
    "jax": "import jax; ok = any(d.platform == 'gpu' for d in jax.devices())",
}


def unavailable_reason(framework, device):
    """Why this interpreter cannot run the loop (module missing, no GPU), or None."""
    if importlib.util.find_spec(MODULES[framework]) is None:
        return f"{framework} is not importable by {sys.executable}"
    reason = peer_core.numpy_unavailable_reason()
    if reason or device != "cuda":
        return reason
    scope = {}
    exec(SEES_GPU[framework], scope)  # noqa: S102 - a fixed snippet of this file
    return None if scope["ok"] else f"{framework} sees no CUDA device"


def run(doc, default_name, framework, switches, argv=None):
    """Parses the peer command line, exports the loop with `switches`, runs it; the exit code."""
    args = peer_core.parse_args(doc, default_name, argv)
    reason = unavailable_reason(framework, args.device)
    if reason:
        return peer_core.skip(reason)
    if not os.access(mlpwb_path(), os.X_OK):
        return peer_core.skip(f"no workbench at {mlpwb_path()} to export the loop (build it, or set WB_MLPWB)")
    with tempfile.TemporaryDirectory(prefix="mlpwb-peer-") as folder:
        script = os.path.join(folder, "loop.py")
        exported = subprocess.run(export_command(framework, switches, args) + ["--out", script],
                                  capture_output=True, text=True)
        if exported.returncode != 0:
            return peer_core.fail(exported.stderr.strip() or "mlpwb export failed")
        code = subprocess.run(loop_command(script, args), env=thread_env(args.threads),
                              preexec_fn=cpu_mask(args.threads)).returncode
    if code == 0 and args.out:
        note_threads(args.out, framework, args.threads)
        with open(args.out, encoding="utf-8") as f:
            summary = json.load(f)["summary"]
        print(f"median epoch ms: {summary['median_epoch_ms']:.1f} (excluding warm-up epoch 1); "
              f"total {summary['total_ms']:.1f}", flush=True)
    return code
