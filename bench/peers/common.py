"""Shared helpers for the PyTorch peer programs of MLP Workbench.

The peers run the same workload as the workbench (a 61 -> 20 -> 10 -> 1 tanh MLP, binary
cross-entropy, Adam) and write the same RunRecord file (schema "mlpwb.run/1", see
/work/shared/DESIGN.md "The RunRecord file"), so every chart can overlay them.

What lives here:
  * loading a data set from a .npy pair (features (rows, cols) + labels (rows,));
  * a seeded synthetic data set with a structured teacher label;
  * the model `MLP`, whose state_dict keys are exactly the workbench's safetensors names
    "layers.{i}.weight" [out, in] and "layers.{i}.bias" [out];
  * safetensors read/write by hand (no `safetensors` package needed);
  * RunRecord bookkeeping and atomic JSON writes;
  * the "SKIP:" protocol for a missing torch or a missing GPU.

Run the peers with Debian's interpreter, /usr/bin/python3 (PyTorch 1.13 + numpy live there).
This module imports without torch or numpy so that a peer can still print a clean "SKIP:" line.
"""

import argparse
import json
import math
import os
import platform
import statistics
import struct
import subprocess
import sys
import tempfile
import time

try:  # Optional at import time: unavailable_reason() reports what is missing.
    import numpy as np
except ImportError as _exc:  # pragma: no cover - depends on the interpreter
    np = None
    _NUMPY_ERROR = _exc
else:
    _NUMPY_ERROR = None

try:
    import torch
    from torch import nn
except ImportError as _exc:  # pragma: no cover - depends on the interpreter
    torch = None
    nn = None
    _TORCH_ERROR = _exc
else:
    _TORCH_ERROR = None

RUN_SCHEMA = "mlpwb.run/1"
DEFAULT_HIDDEN = (20, 10)
SAFETENSORS_F32 = "F32"


# --------------------------------------------------------------------------------------------
# Availability ("SKIP:" protocol)
# --------------------------------------------------------------------------------------------

def unavailable_reason(device="cpu"):
    """Why a peer cannot run on `device` ("cpu" | "cuda"), or None when it can."""
    if _NUMPY_ERROR is not None:
        return f"numpy is not importable by {sys.executable} ({_NUMPY_ERROR}); use /usr/bin/python3"
    if _TORCH_ERROR is not None:
        return f"PyTorch is not importable by {sys.executable} ({_TORCH_ERROR}); use /usr/bin/python3"
    if device == "cuda" and not torch.cuda.is_available():
        return "--device cuda requested but torch.cuda.is_available() is False (no GPU, no driver, " \
               f"or a CPU-only build: torch {torch.__version__})"
    return None


def skip(reason):
    """Prints the one-line skip message and returns the exit code a skipped peer uses (0)."""
    print(f"SKIP: {reason}", flush=True)
    return 0


def fail(error):
    """Prints a one-line error for bad input (a file, a shape) and returns exit code 2."""
    print(f"error: {error}", file=sys.stderr, flush=True)
    return 2


def parse_hidden(text):
    """'20,10' -> (20, 10); the argparse type of --hidden."""
    try:
        widths = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from exc
    if not widths or any(w < 1 or w > 1024 for w in widths):
        raise argparse.ArgumentTypeError(f"widths must be between 1 and 1024, got {text!r}")
    return widths


# --------------------------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------------------------

def load_npy_dataset(features_path, labels_path):
    """Loads features (rows, cols) and labels (rows,) or (rows, 1) as C-ordered float32 arrays.

    Raises ValueError naming the file when shapes or label values do not fit a binary task.
    """
    x = np.load(features_path, allow_pickle=False)
    y = np.load(labels_path, allow_pickle=False)
    if x.ndim != 2:
        raise ValueError(f"{features_path}: expected a 2-D (rows, features) array, got shape {x.shape}")
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1 or y.shape[0] != x.shape[0]:
        raise ValueError(f"{labels_path}: expected labels of shape ({x.shape[0]},), got {y.shape}")
    x = np.ascontiguousarray(x, dtype=np.float32)
    y = np.ascontiguousarray(y, dtype=np.float32)
    if not np.all((y == 0) | (y == 1)):
        raise ValueError(f"{labels_path}: labels must be 0 or 1")
    return x, y


def teacher_dataset(rows, features, seed):
    """A seeded binary data set with a structured label, as float32 (x (rows, features), y (rows,)).

    Features: standard normal, with a few columns rescaled and shifted so that magnitudes differ
    (as in real tabular data). Label: a fixed random two-layer tanh "teacher" network of the
    features plus a little noise, thresholded at its median so the classes are balanced.
    """
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((rows, features), dtype=np.float64)
    scale = rng.uniform(0.5, 3.0, size=features)
    shift = rng.uniform(-1.0, 1.0, size=features)
    x = x * scale + shift
    w1 = rng.standard_normal((features, 8)) / np.sqrt(features)
    w2 = rng.standard_normal(8)
    standardized = (x - shift) / scale
    score = np.tanh(standardized @ w1 * 1.5) @ w2 + 0.25 * rng.standard_normal(rows)
    y = (score > np.median(score)).astype(np.float32)
    return x.astype(np.float32), y


# --------------------------------------------------------------------------------------------
# Model
# --------------------------------------------------------------------------------------------

_ModuleBase = nn.Module if nn is not None else object


class MLP(_ModuleBase):
    """Linear layers with tanh between them and one output logit.

    `self.layers` is an nn.ModuleList, so state_dict keys are "layers.{i}.weight" and
    "layers.{i}.bias", the workbench's safetensors names. With `output_sigmoid=True` the forward
    pass ends with a separate nn.Sigmoid (the founding loop's model, paired with nn.BCELoss) and
    returns probabilities instead of logits; the parameters are the same either way.
    """

    def __init__(self, inputs, hidden=DEFAULT_HIDDEN, output_sigmoid=False):
        super().__init__()
        widths = [inputs, *hidden, 1]
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(widths[:-1], widths[1:]))
        self.activation = nn.Tanh()
        self.output = nn.Sigmoid() if output_sigmoid else None

    def forward(self, x):
        for layer in self.layers[:-1]:
            x = self.activation(layer(x))
        x = self.layers[-1](x)
        return self.output(x) if self.output is not None else x


# --------------------------------------------------------------------------------------------
# safetensors (by hand: 8-byte little-endian header length, JSON header, raw little-endian data)
# --------------------------------------------------------------------------------------------

def _atomic_write_bytes(path, payload):
    """Writes `payload` to `path` via a temporary file in the same folder and os.replace."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
        os.chmod(tmp, 0o644)  # mkstemp creates 0600; give the file ordinary permissions
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_safetensors(path, tensors):
    """Writes {name: float32 ndarray} as a safetensors file, in the given order, atomically."""
    header = {}
    blobs = []
    offset = 0
    for name, array in tensors.items():
        data = np.ascontiguousarray(array, dtype="<f4").tobytes()
        header[name] = {"dtype": SAFETENSORS_F32, "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    header["__metadata__"] = {"format": "pt"}
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)  # pad with spaces so the data starts 8-byte aligned
    _atomic_write_bytes(path, struct.pack("<Q", len(text)) + text + b"".join(blobs))


def read_safetensors(path):
    """Reads a safetensors file of float32 tensors into {name: ndarray}, in file order.

    Raises ValueError naming the file for a malformed header or a non-F32 tensor.
    """
    with open(path, "rb") as f:
        blob = f.read()
    if len(blob) < 8:
        raise ValueError(f"{path}: too short for a safetensors file")
    (header_len,) = struct.unpack("<Q", blob[:8])
    if 8 + header_len > len(blob):
        raise ValueError(f"{path}: header length {header_len} runs past the end of the file")
    header = json.loads(blob[8:8 + header_len].decode("utf-8"))
    data = memoryview(blob)[8 + header_len:]
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        if entry.get("dtype") != SAFETENSORS_F32:
            raise ValueError(f"{path}: tensor {name} has dtype {entry.get('dtype')}, expected F32")
        begin, end = entry["data_offsets"]
        shape = tuple(entry["shape"])
        count = int(np.prod(shape)) if shape else 1
        if end - begin != 4 * count or end > len(data):
            raise ValueError(f"{path}: tensor {name} has offsets {begin}..{end} that do not fit shape {shape}")
        tensors[name] = np.frombuffer(data[begin:end], dtype="<f4").reshape(shape).copy()
    return tensors


def model_tensors(model):
    """The model's parameters as {"layers.{i}.weight"/"layers.{i}.bias": float32 ndarray}."""
    return {name: t.detach().to("cpu", torch.float32).numpy() for name, t in model.state_dict().items()}


def save_model(model, path):
    """Saves the model's Linear layers as safetensors with the workbench's names."""
    write_safetensors(path, model_tensors(model))


def load_model(model, path):
    """Loads weights saved by save_model (or the workbench) into `model`; checks names and shapes."""
    tensors = read_safetensors(path)
    state = model.state_dict()
    missing = sorted(set(state) - set(tensors))
    unexpected = sorted(set(tensors) - set(state))
    if missing or unexpected:
        raise ValueError(f"{path}: tensor names do not match the model "
                         f"(missing {missing}, unexpected {unexpected})")
    for name, target in state.items():
        if tuple(target.shape) != tensors[name].shape:
            raise ValueError(f"{path}: {name} has shape {tensors[name].shape}, "
                             f"the model expects {tuple(target.shape)}")
    model.load_state_dict({name: torch.from_numpy(array) for name, array in tensors.items()})


# --------------------------------------------------------------------------------------------
# RunRecord
# --------------------------------------------------------------------------------------------

def write_json_atomic(path, obj):
    """Writes `obj` as indented JSON to `path` atomically (temporary file + os.replace)."""
    _atomic_write_bytes(path, (json.dumps(obj, indent=2) + "\n").encode("utf-8"))


def environment(device, threads):
    """The RunRecord "environment" of a PyTorch peer."""
    env = {
        "backend": "pytorch",
        "device": device,
        "framework": f"torch {torch.__version__}",
        "threads": threads,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
    }
    package = debian_package_version()
    if package:
        env["framework_package"] = package
    if device == "cuda":
        env["device_name"] = torch.cuda.get_device_name(0)
        env["cuda"] = torch.version.cuda
    return env


def debian_package_version():
    """'python3-torch 1.13.1+dfsg-4' when torch is Debian's package, else None.

    Debian's build reports torch.__version__ as '1.13.0a0'; the package version says which
    release it really is. Best effort: any failure just leaves it out.
    """
    if not torch.__file__.startswith("/usr/lib/python3/"):
        return None
    try:
        result = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "python3-torch"],
                                capture_output=True, text=True, timeout=5, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return f"python3-torch {result.stdout.strip()}" if result.stdout.strip() else None


def dataset_description(features_path, labels_path, x):
    """The RunRecord "dataset" of a .npy pair (no content hash: the workbench defines its own)."""
    return {
        "source": os.path.basename(features_path),
        "labels_source": os.path.basename(labels_path),
        "rows": int(x.shape[0]),
        "features": int(x.shape[1]),
        "label": os.path.splitext(os.path.basename(labels_path))[0],
        "label_mapping": {"0": 0, "1": 1},
        "hash": None,
    }


def epoch_entry(epoch, train_loss, train_accuracy, wall_ms, rows, elapsed_ms):
    """One element of the RunRecord "epochs" list; what a peer cannot measure is null."""
    return {
        "epoch": epoch,
        "warmup": epoch == 1,
        "train_loss": train_loss,
        "train_accuracy": train_accuracy,
        "val_loss": None,
        "val_accuracy": None,
        "wall_ms": wall_ms,
        "device_ms": None,
        "samples_per_s": rows / (wall_ms / 1000.0) if wall_ms > 0 else None,
        "phases_ms": None,
        "elapsed_ms": elapsed_ms,
    }


def timed_epochs_ms(epochs):
    """Wall times of the epochs a summary uses: all but the warm-up, unless it is the only one."""
    walls = [e["wall_ms"] for e in epochs]
    return walls[1:] if len(walls) > 1 else walls


def summarize(epochs):
    """The RunRecord "summary": median/min epoch time without warm-up, total, final metrics.

    total_ms is the sum of the epochs' wall times (training only, not the record writes).
    """
    if not epochs:
        return {"median_epoch_ms": None, "min_epoch_ms": None, "total_ms": 0.0, "final": None}
    timed = timed_epochs_ms(epochs)
    last = epochs[-1]
    return {
        "median_epoch_ms": statistics.median(timed),
        "min_epoch_ms": min(timed),
        "total_ms": sum(e["wall_ms"] for e in epochs),
        "final": {key: last[key] for key in ("train_loss", "train_accuracy", "val_loss", "val_accuracy")},
    }


class RunRecord:
    """A RunRecord being filled epoch by epoch; save() rewrites the whole file atomically."""

    def __init__(self, path, name, config, dataset, env):
        self.path = path
        self.record = {
            "schema": RUN_SCHEMA,
            "name": name,
            "status": "running",
            "message": "",
            "config": config,
            "dataset": dataset,
            "environment": env,
            "epochs": [],
            "summary": summarize([]),
        }

    def add_epoch(self, entry):
        """Appends one epoch, refreshes the summary and saves (a crash loses at most one epoch)."""
        self.record["epochs"].append(entry)
        self.record["summary"] = summarize(self.record["epochs"])
        self.save()

    def finish(self, status, message=""):
        """Sets the final status ("completed" | "cancelled" | "diverged" | "failed") and saves."""
        self.record["status"] = status
        self.record["message"] = message
        self.save()

    def save(self):
        if self.path:
            write_json_atomic(self.path, self.record)


def format_epoch(entry, epochs):
    """One console line per epoch."""
    tag = "  (warm-up)" if entry["warmup"] else ""
    return (f"epoch {entry['epoch']:>3}/{epochs}  loss {entry['train_loss']:.6f}  "
            f"acc {entry['train_accuracy']:.4f}  {entry['wall_ms']:9.1f} ms  "
            f"{entry['samples_per_s']:,.0f} samples/s{tag}")


# --------------------------------------------------------------------------------------------
# The shared peer driver: arguments, set-up, the epoch loop around a peer's measured epoch
# --------------------------------------------------------------------------------------------

def build_arg_parser(description, default_name):
    """The command line every peer accepts."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--data", required=True, help="features .npy, float32 (rows, features)")
    parser.add_argument("--labels", required=True, help="labels .npy, (rows,) of 0/1")
    parser.add_argument("--epochs", type=int, default=200)
    parser.add_argument("--batch-size", type=int, default=2048)
    parser.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate")
    parser.add_argument("--hidden", type=parse_hidden, default=DEFAULT_HIDDEN,
                        help="hidden widths, comma-separated (default 20,10)")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--threads", type=int, default=None,
                        help="torch.set_num_threads(T); default: leave PyTorch's choice")
    parser.add_argument("--seed", type=int, default=0,
                        help="torch.manual_seed for the initial weights (ignored with --init-weights)")
    parser.add_argument("--init-weights", default=None,
                        help="safetensors with layers.{i}.weight/bias to start from")
    parser.add_argument("--save-weights", default=None, help="safetensors to write the final weights to")
    parser.add_argument("--out", default=None, help="RunRecord JSON to write (after every epoch)")
    parser.add_argument("--name", default=default_name, help="run name shown in tables and legends")
    return parser


def check_args(parser, args):
    """Rejects values argparse's types cannot (exits with a usage error)."""
    if args.epochs < 1:
        parser.error("--epochs must be at least 1")
    if args.batch_size < 1:
        parser.error("--batch-size must be at least 1")
    if args.threads is not None and args.threads < 1:
        parser.error("--threads must be at least 1")


def parse_peer_args(doc, default_name, argv=None):
    """Parses and checks a peer's command line. Returns (args, reason): reason is why the peer
    must skip (no torch, no GPU), or None."""
    parser = build_arg_parser(doc.splitlines()[0], default_name)
    args = parser.parse_args(argv)
    check_args(parser, args)
    return args, unavailable_reason(args.device)


def prepare(args, output_sigmoid):
    """Thread count, data (on the host) and the initial model (on args.device).

    Returns (x, y, model) with x (rows, features) and y (rows,) float32 numpy arrays.
    """
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    x, y = load_npy_dataset(args.data, args.labels)
    torch.manual_seed(args.seed)
    model = MLP(x.shape[1], args.hidden, output_sigmoid=output_sigmoid)
    if args.init_weights:
        load_model(model, args.init_weights)
    return x, y, model.to(args.device)


def peer_config(args, loop):
    """The RunRecord "config" of a peer; `loop` describes what the measured loop does."""
    return {
        "model": {"hidden": list(args.hidden), "activation": "tanh",
                  "init": "file" if args.init_weights else "torch",
                  "init_weights": args.init_weights, "init_seed": None if args.init_weights else args.seed},
        "optimizer": {"kind": "adam", "lr": args.lr, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8,
                      "weight_decay": 0.0},
        "train": {"epochs": args.epochs, "batch_size": args.batch_size, "shuffle": False,
                  "seed": args.seed},
        "prepare": {"val_split": 0.0, "standardize": False},
        "execution": None,
        "backend": "pytorch",
        "device": args.device,
        "peer": loop,
    }


def train_and_record(args, x, model, config, run_epoch):
    """Runs `run_epoch` args.epochs times, timing each call, and records every epoch.

    `run_epoch()` runs one epoch of the peer's measured loop and returns two 0-d device tensors:
    the sum of per-sample losses (batch loss x batch rows) and the count of correct predictions.
    They are read with .item() once, at the end of the epoch and inside the timed region (that
    read is the epoch's only host sync, and it makes the wall time honest on a GPU).
    With --save-weights, the final weights are saved after the last epoch.
    Returns the process exit code.
    """
    rows = int(x.shape[0])
    record = RunRecord(args.out, args.name, config,
                       dataset_description(args.data, args.labels, x),
                       environment(args.device, torch.get_num_threads()))
    record.save()
    if args.device == "cuda":
        torch.cuda.synchronize()
    run_start = time.perf_counter_ns()
    try:
        for epoch in range(1, args.epochs + 1):
            start = time.perf_counter_ns()
            loss_sum, correct = run_epoch()
            loss_sum, correct = loss_sum.item(), correct.item()  # the once-per-epoch sync
            end = time.perf_counter_ns()
            wall_ms, elapsed_ms = (end - start) / 1e6, (end - run_start) / 1e6
            entry = epoch_entry(epoch, loss_sum / rows, correct / rows, wall_ms, rows, elapsed_ms)
            print(format_epoch(entry, args.epochs), flush=True)
            record.add_epoch(entry)
            if not math.isfinite(entry["train_loss"]):
                record.finish("diverged", f"train loss is {entry['train_loss']} after epoch {epoch}")
                print(f"diverged at epoch {epoch}", file=sys.stderr)
                return 3
    except KeyboardInterrupt:
        record.finish("cancelled", "interrupted (Ctrl-C)")
        print("cancelled", file=sys.stderr)
        return 130
    except Exception as exc:  # record why, then fail loudly
        record.finish("failed", f"{type(exc).__name__}: {exc}")
        raise
    record.finish("completed")
    if args.save_weights:
        save_model(model, args.save_weights)
    summary = record.record["summary"]
    excluded = " (excluding warm-up epoch 1)" if args.epochs > 1 else ""
    print(f"median epoch ms: {summary['median_epoch_ms']:.1f}{excluded}; "
          f"min {summary['min_epoch_ms']:.1f}; total {summary['total_ms']:.1f}", flush=True)
    return 0
