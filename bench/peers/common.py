"""The PyTorch half of the peer programs of MLP Workbench, on top of peer_core.py.

peer_core.py holds what every framework shares (command line, data, safetensors, RunRecord, the
timed epoch loop); this module re-exports it and adds the PyTorch parts:
  * the model `MLP`, whose state_dict keys are exactly the workbench's safetensors names
    "layers.{i}.weight" [out, in] and "layers.{i}.bias" [out];
  * loading and saving its weights, the PyTorch RunRecord environment and the driver
    train_and_record around a peer's measured epoch;
  * the "SKIP:" reasons for a missing torch or a missing GPU.

Run the torch 1.13 peers with Debian's interpreter, /usr/bin/python3 (PyTorch 1.13 + numpy live
there); torch_compile.py and torch_cuda_graph.py need torch 2 (bench/peers/setup_venv.sh).
This module imports without torch or numpy so that a peer can still print a clean "SKIP:" line.
"""

import subprocess
import sys

import peer_core
from peer_core import (DEFAULT_HIDDEN, RUN_SCHEMA, RunRecord, build_arg_parser,  # noqa: F401
                       check_args, dataset_description, epoch_entry, fail, format_epoch,
                       load_npy_dataset, np, parse_hidden, read_safetensors, skip, summarize,
                       teacher_dataset, timed_epochs_ms, write_json_atomic, write_safetensors)

try:
    import torch
    from torch import nn
except ImportError as _exc:  # pragma: no cover - depends on the interpreter
    torch = None
    nn = None
    _TORCH_ERROR = _exc
else:
    _TORCH_ERROR = None


# --------------------------------------------------------------------------------------------
# Availability ("SKIP:" protocol)
# --------------------------------------------------------------------------------------------

def unavailable_reason(device="cpu"):
    """Why a peer cannot run on `device` ("cpu" | "cuda"), or None when it can."""
    if peer_core.NUMPY_ERROR is not None:
        return f"{peer_core.numpy_unavailable_reason()}; use /usr/bin/python3"
    if _TORCH_ERROR is not None:
        return f"PyTorch is not importable by {sys.executable} ({_TORCH_ERROR}); use /usr/bin/python3"
    if device == "cuda" and not torch.cuda.is_available():
        return "--device cuda requested but torch.cuda.is_available() is False (no GPU, no driver, " \
               f"or a CPU-only build: torch {torch.__version__})"
    return None


def torch_major():
    """PyTorch's major version as an int (1 for Debian's 1.13), or 0 without torch."""
    return int(torch.__version__.split(".")[0]) if torch is not None else 0


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


def environment(device, threads):
    """The RunRecord "environment" of a PyTorch peer."""
    env = peer_core.base_environment("pytorch", device, f"torch {torch.__version__}", threads)
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


def parse_peer_args(doc, default_name, argv=None):
    """Parses and checks a peer's command line. Returns (args, reason): reason is why the peer
    must skip (no torch, no GPU), or None."""
    args = peer_core.parse_args(doc, default_name, argv)
    if args.activation != "tanh":  # the hand-written model (Mlp above) is tanh only
        return args, f"this peer's model is tanh only, not {args.activation} (use an exported-loop peer)"
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
    """The RunRecord "config" of a PyTorch peer; `loop` describes what the measured loop does."""
    return peer_core.peer_config(args, loop, backend="pytorch", init="torch")


def train_and_record(args, x, model, config, run_epoch):
    """Runs `run_epoch` args.epochs times, timing each call, and records every epoch.

    `run_epoch()` runs one epoch of the peer's measured loop and returns two 0-d device tensors:
    the sum of per-sample losses (batch loss x batch rows) and the count of correct predictions.
    They are read with .item() once, at the end of the epoch and inside the timed region (that
    read is the epoch's only host sync, and it makes the wall time honest on a GPU).
    With --save-weights, the final weights are saved after the last epoch.
    Returns the process exit code.
    """
    record = RunRecord(args.out, args.name, config,
                       dataset_description(args.data, args.labels, x),
                       environment(args.device, torch.get_num_threads()))
    if args.device == "cuda":
        torch.cuda.synchronize()

    def run_epoch_and_read():
        loss_sum, correct = run_epoch()
        return loss_sum.item(), correct.item()  # the once-per-epoch sync

    code = peer_core.run_epochs(args, int(x.shape[0]), record, run_epoch_and_read)
    if code == 0 and args.save_weights:
        save_model(model, args.save_weights)
    return code
