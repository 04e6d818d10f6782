"""The framework-free half of the peer programs of MLP Workbench (numpy only, and optional).

Every peer runs the same workload as the workbench (a 61 -> 20 -> 10 -> 1 tanh MLP, binary
cross-entropy, Adam) and writes the same RunRecord file (schema "mlpwb.run/1", see
docs/ARCHITECTURE.md, "The RunRecord file"), so every chart can overlay them.

What lives here, for every framework (PyTorch, JAX, Keras):
  * the command line every peer accepts and the "SKIP:" protocol;
  * loading a data set from a .npy pair (features (rows, cols) + labels (rows,)), and a seeded
    synthetic data set with a structured teacher label;
  * initial weights: a safetensors file, or PyTorch's nn.Linear default distribution drawn with numpy;
  * safetensors read/write by hand (no `safetensors` package needed);
  * RunRecord bookkeeping, atomic JSON writes and the timed epoch loop.

common.py adds the PyTorch parts on top of this module; the JAX and Keras peers import only this
one, so they never load torch. This module imports without numpy, so a peer can still print SKIP.
"""

import argparse
import json
import math
import os
import platform
import statistics
import struct
import sys
import tempfile
import time

try:  # Optional at import time: numpy_unavailable_reason() reports what is missing.
    import numpy as np
except ImportError as _exc:  # pragma: no cover - depends on the interpreter
    np = None
    NUMPY_ERROR = _exc
else:
    NUMPY_ERROR = None

RUN_SCHEMA = "mlpwb.run/1"
DEFAULT_HIDDEN = (20, 10)
SAFETENSORS_F32 = "F32"


# --------------------------------------------------------------------------------------------
# Availability ("SKIP:" protocol)
# --------------------------------------------------------------------------------------------

def numpy_unavailable_reason():
    """Why numpy cannot be used by this interpreter, or None."""
    if NUMPY_ERROR is not None:
        return f"numpy is not importable by {sys.executable} ({NUMPY_ERROR})"
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



# --------------------------------------------------------------------------------------------
# RunRecord
# --------------------------------------------------------------------------------------------

def write_json_atomic(path, obj):
    """Writes `obj` as indented JSON to `path` atomically (temporary file + os.replace)."""
    _atomic_write_bytes(path, (json.dumps(obj, indent=2) + "\n").encode("utf-8"))


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
    parser.add_argument("--activation", choices=("tanh", "relu", "sigmoid", "gelu", "identity"), default="tanh",
                        help="hidden activation (the exported-loop peers; the hand-written ones are tanh only)")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--threads", type=int, default=None,
                        help="threads of the framework's CPU ops; default: leave the framework's choice")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the initial weights (ignored with --init-weights)")
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




def parse_args(doc, default_name, argv=None):
    """Parses and checks a peer's command line (the first line of `doc` is its description)."""
    parser = build_arg_parser(doc.splitlines()[0], default_name)
    args = parser.parse_args(argv)
    check_args(parser, args)
    return args


def base_environment(backend, device, framework, threads):
    """The RunRecord "environment" keys every peer fills; a peer adds its own."""
    return {
        "backend": backend,
        "device": device,
        "framework": framework,
        "threads": threads,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
    }


def peer_config(args, loop, backend, init):
    """The RunRecord "config" of a peer; `loop` describes what the measured loop does and `init`
    names the initial weights' distribution when they do not come from a file."""
    return {
        "model": {"hidden": list(args.hidden), "activation": getattr(args, "activation", "tanh"),
                  "init": "file" if args.init_weights else init,
                  "init_weights": args.init_weights, "init_seed": None if args.init_weights else args.seed},
        "optimizer": {"kind": "adam", "lr": args.lr, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8,
                      "weight_decay": 0.0},
        "train": {"epochs": args.epochs, "batch_size": args.batch_size, "shuffle": False,
                  "seed": args.seed},
        "prepare": {"val_split": 0.0, "standardize": False},
        "execution": None,
        "backend": backend,
        "device": args.device,
        "peer": loop,
    }


# --------------------------------------------------------------------------------------------
# Initial weights without a framework
# --------------------------------------------------------------------------------------------

def layer_widths(inputs, hidden):
    """[inputs, *hidden, 1]: the widths of the model's layer boundaries."""
    return [inputs, *hidden, 1]


def torch_default_init(inputs, hidden, seed):
    """Initial weights drawn like PyTorch's nn.Linear default, with numpy's generator.

    nn.Linear draws weight and bias from U(-1/sqrt(fan_in), 1/sqrt(fan_in)); the same distribution
    here (not the same numbers as torch.manual_seed). Returns {"layers.{i}.weight": (out, in),
    "layers.{i}.bias": (out,)} float32 arrays in layer order.
    """
    rng = np.random.default_rng(seed)
    widths = layer_widths(inputs, hidden)
    tensors = {}
    for i, (fan_in, fan_out) in enumerate(zip(widths[:-1], widths[1:])):
        bound = 1.0 / math.sqrt(fan_in)
        tensors[f"layers.{i}.weight"] = rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32)
        tensors[f"layers.{i}.bias"] = rng.uniform(-bound, bound, (fan_out,)).astype(np.float32)
    return tensors


def load_initial_tensors(path, inputs, hidden):
    """Reads initial weights from a safetensors file and checks names and shapes against the model.

    Returns {"layers.{i}.weight": (out, in), "layers.{i}.bias": (out,)} in layer order; raises
    ValueError naming the file when the file does not fit the model.
    """
    tensors = read_safetensors(path)
    widths = layer_widths(inputs, hidden)
    ordered = {}
    for i, (fan_in, fan_out) in enumerate(zip(widths[:-1], widths[1:])):
        for name, shape in ((f"layers.{i}.weight", (fan_out, fan_in)), (f"layers.{i}.bias", (fan_out,))):
            if name not in tensors:
                raise ValueError(f"{path}: tensor {name} is missing")
            if tensors[name].shape != shape:
                raise ValueError(f"{path}: {name} has shape {tensors[name].shape}, the model expects {shape}")
            ordered[name] = tensors[name]
    extra = sorted(set(tensors) - set(ordered))
    if extra:
        raise ValueError(f"{path}: tensors {extra} do not belong to the model")
    return ordered


# --------------------------------------------------------------------------------------------
# The timed epoch loop
# --------------------------------------------------------------------------------------------

class EpochLog:
    """Turns finished epochs into RunRecord entries, console lines and the final summary.

    A peer that owns its loop uses run_epochs(); one whose framework owns the loop (Keras fit)
    calls start() before it and add() from a per-epoch callback.
    """

    def __init__(self, args, rows, record):
        self.args = args
        self.rows = rows
        self.record = record
        self.run_start_ns = None

    def start(self):
        self.record.save()
        self.run_start_ns = time.perf_counter_ns()

    def add(self, epoch, train_loss, train_accuracy, start_ns, end_ns):
        """Records one epoch (mean loss and accuracy over its rows); False when the loss diverged."""
        wall_ms = (end_ns - start_ns) / 1e6
        elapsed_ms = (end_ns - self.run_start_ns) / 1e6
        entry = epoch_entry(epoch, float(train_loss), float(train_accuracy), wall_ms, self.rows, elapsed_ms)
        print(format_epoch(entry, self.args.epochs), flush=True)
        self.record.add_epoch(entry)
        if not math.isfinite(entry["train_loss"]):
            self.record.finish("diverged", f"train loss is {entry['train_loss']} after epoch {epoch}")
            print(f"diverged at epoch {epoch}", file=sys.stderr)
            return False
        return True

    def complete(self):
        """Marks the run completed and prints the median epoch time."""
        self.record.finish("completed")
        summary = self.record.record["summary"]
        excluded = " (excluding warm-up epoch 1)" if len(self.record.record["epochs"]) > 1 else ""
        print(f"median epoch ms: {summary['median_epoch_ms']:.1f}{excluded}; "
              f"min {summary['min_epoch_ms']:.1f}; total {summary['total_ms']:.1f}", flush=True)


def run_epochs(args, rows, record, run_epoch):
    """Runs `run_epoch` args.epochs times, timing each call, and records every epoch.

    `run_epoch()` runs one epoch of the peer's measured loop and returns (sum of per-sample
    losses, number of correct predictions) as Python numbers: reading them is the epoch's host
    sync, inside the timed region, so the wall time is honest on a GPU.
    Returns the process exit code: 0 completed, 3 diverged, 130 interrupted.
    """
    log = EpochLog(args, rows, record)
    log.start()
    try:
        for epoch in range(1, args.epochs + 1):
            start = time.perf_counter_ns()
            loss_sum, correct = run_epoch()
            end = time.perf_counter_ns()
            if not log.add(epoch, loss_sum / rows, correct / rows, start, end):
                return 3
    except KeyboardInterrupt:
        record.finish("cancelled", "interrupted (Ctrl-C)")
        print("cancelled", file=sys.stderr)
        return 130
    except Exception as exc:  # record why, then fail loudly
        record.finish("failed", f"{type(exc).__name__}: {exc}")
        raise
    log.complete()
    return 0
