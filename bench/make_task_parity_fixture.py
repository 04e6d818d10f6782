#!/usr/bin/python3
"""Generates the PyTorch parity fixture for multiclass and regression: tests/data/parity_tasks/.

Regenerate (from the repository root, with Debian's PyTorch 1.13 + numpy; nothing else needed):

    /usr/bin/python3 bench/make_task_parity_fixture.py

(--out-dir DIR writes elsewhere). Deterministic on a given PyTorch build: one thread,
deterministic algorithms, fixed seeds, no shuffling. bench/make_parity_fixture.py does the same
for the binary task; this file follows its conventions.

What it writes (about 0.2 MB):
  x.npy                  features, float32 (600, 12), C order, NOT standardised
  y_k3.npy, y_k10.npy    class labels 0..K-1 as float32 (600,), from a seeded linear teacher + noise
  y_target.npy           a regression target in its own units (around 100, spread ~30), float32
  init_k3.safetensors, init_k10.safetensors, init_k1.safetensors
                         initial weights: torch.manual_seed(0), then nn.Linear's default init for
                         12 -> 16 -> 8 -> K (tanh hidden layers), the workbench's names
  final_<case>.safetensors  the weights after training
  expected.json          per case: labels file, outputs, loss, per-epoch mean train loss (and
                         accuracy for classification), the float64 yardstick as in the binary fixture

The training every case does (what the C++ test must do to match):
  * start from the case's init file; features as they are (no standardisation), no split, no
    shuffling; 3 epochs of batches of 128 rows in file order (the last one 88 rows);
  * Adam lr 1e-2 (betas 0.9/0.999, eps 1e-8), single-tensor update, gradients zeroed once a step;
  * multiclass: logits (n, K); "cross_entropy" = nn.CrossEntropyLoss() (the workbench's
    loss=bce_with_logits), "log_softmax_nll" = nn.NLLLoss()(torch.log(torch.softmax(z, 1)), y)
    (loss=sigmoid_bce); accuracy = argmax == label; the "_weighted" cases pass the case's
    class_weights as weight= to CrossEntropyLoss / NLLLoss (batch loss sum w[y] l / sum w[y]);
  * regression: the target standardised with the mean and population std of all 600 rows (the
    training rows: no split), computed in float64, then cast to float32 -- as the workbench's
    prepare() does; "mse" = nn.MSELoss(), "huber" = nn.HuberLoss(delta=1.0) on the (n, 1) output;
  * the epoch's train loss = sum over batches of (batch loss x batch rows) / 600; with class
    weights sum over batches of (batch loss x the batch's sum w[y]) / (the epoch's sum w[y]), the
    weighted mean over the epoch's rows, as the workbench reports it.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "peers"))
import common  # noqa: E402  (bench/peers/common.py)
from make_parity_fixture import (checksums, file_sha256, float64_distance, make_optimizer,  # noqa: E402
                                 run_epochs)

ROWS = 600
FEATURES = 12
HIDDEN = (16, 8)
DATA_SEED = 15
INIT_TORCH_SEED = 0
EPOCHS = 3
BATCH_SIZE = 128
ADAM = {"kind": "adam", "lr": 1e-2, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8, "weight_decay": 0.0}
DEFAULT_OUT_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                               "tests", "data", "parity_tasks")

# Each case: the task, the labels file, the width of the output layer and the loss in the
# workbench's words ("loss" is the execution switch, "regression_loss" the model's choice).
CASES = {
    "k3_cross_entropy": {"task": "multiclass", "labels": "y_k3.npy", "outputs": 3, "loss": "bce_with_logits"},
    "k3_log_softmax_nll": {"task": "multiclass", "labels": "y_k3.npy", "outputs": 3, "loss": "sigmoid_bce"},
    "k10_cross_entropy": {"task": "multiclass", "labels": "y_k10.npy", "outputs": 10, "loss": "bce_with_logits"},
    "regression_mse": {"task": "regression", "labels": "y_target.npy", "outputs": 1, "regression_loss": "mse"},
    "regression_huber": {"task": "regression", "labels": "y_target.npy", "outputs": 1, "regression_loss": "huber"},
    "k3_cross_entropy_weighted": {"task": "multiclass", "labels": "y_k3.npy", "outputs": 3,
                                  "loss": "bce_with_logits", "class_weights": [0.5, 2.0, 1.25]},
    "k3_log_softmax_nll_weighted": {"task": "multiclass", "labels": "y_k3.npy", "outputs": 3,
                                    "loss": "sigmoid_bce", "class_weights": [0.5, 2.0, 1.25]},
}


class Mlp(common.nn.Module):
    """12 -> 16 -> 8 -> K, tanh between; state_dict keys "layers.{i}.weight"/"layers.{i}.bias"."""

    def __init__(self, outputs):
        super().__init__()
        nn = common.nn
        widths = [FEATURES, *HIDDEN, outputs]
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(widths[:-1], widths[1:]))

    def forward(self, x):
        for layer in self.layers[:-1]:
            x = common.torch.tanh(layer(x))
        return self.layers[-1](x)


def make_data():
    """Features and the three label sets, deterministic in DATA_SEED."""
    np = common.np
    rng = np.random.default_rng(DATA_SEED)
    x = rng.normal(size=(ROWS, FEATURES)).astype(np.float32)
    labels = {}
    for k in (3, 10):
        teacher = rng.normal(size=(FEATURES, k))
        scores = x.astype(np.float64) @ teacher + 0.5 * rng.normal(size=(ROWS, k))
        labels[f"y_k{k}.npy"] = scores.argmax(axis=1).astype(np.float32)
    target = 100 + 30 * np.sin(x[:, 0]) + 5 * x[:, 1] * x[:, 2] + rng.normal(size=ROWS)
    labels["y_target.npy"] = target.astype(np.float32)
    return x, labels


def standardised(y):
    """(y - mean) / std with float64 statistics of every row, as float32 (prepare() without a split)."""
    np = common.np
    y64 = y.astype(np.float64)
    mean = y64.sum() / len(y64)
    std = np.sqrt(((y64 - mean) ** 2).sum() / len(y64))
    return ((y64 - mean) / std).astype(np.float32)


def loss_function(case, dtype):
    torch, nn = common.torch, common.nn
    if case["task"] == "regression":
        return nn.MSELoss() if case["regression_loss"] == "mse" else nn.HuberLoss(delta=1.0)
    weight = torch.tensor(case["class_weights"], dtype=dtype) if "class_weights" in case else None
    if case["loss"] == "bce_with_logits":
        return nn.CrossEntropyLoss(weight=weight)
    nll = nn.NLLLoss(weight=weight)
    return lambda z, y: nll(torch.log(torch.softmax(z, 1)), y)


class WeightedEpochLoss:
    """A class-weighted loss that also keeps each batch's (loss x sum w[y], sum w[y]), so an epoch's
    loss is the weighted mean over its rows (sum w l / sum w), not run_epochs' mean over rows."""

    def __init__(self, loss_func, weight):
        self.loss_func, self.weight, self.batches = loss_func, weight, []

    def __call__(self, z, y):
        loss = self.loss_func(z, y)
        total = float(self.weight[y].sum().item())
        self.batches.append((loss.item() * total, total))
        return loss

    def epoch_losses(self, epochs):
        per_epoch = len(self.batches) // epochs
        chunks = [self.batches[e * per_epoch:(e + 1) * per_epoch] for e in range(epochs)]
        return [sum(lw for lw, _ in c) / sum(w for _, w in c) for c in chunks]


def train(case, x, y, init_tensors, dtype):
    """One case from its initial weights; returns (model, per-epoch losses, per-epoch accuracies)."""
    torch = common.torch
    model = Mlp(case["outputs"])
    model.load_state_dict({name: torch.from_numpy(a) for name, a in init_tensors.items()})
    model.to(dtype)
    x = x.to(dtype)
    classify = case["task"] == "multiclass"
    y = y.long() if classify else y.to(dtype).reshape(-1, 1)
    loss_func = loss_function(case, dtype)
    if "class_weights" in case:
        loss_func = WeightedEpochLoss(loss_func, torch.tensor(case["class_weights"], dtype=torch.float64))
    optimizer = make_optimizer(ADAM, model.parameters())
    right = (lambda outputs, targets: outputs.argmax(dim=1) == targets) if classify else None
    losses, accuracies = run_epochs(model, loss_func, optimizer, x, y, EPOCHS, BATCH_SIZE, right)
    if "class_weights" in case:
        losses = loss_func.epoch_losses(EPOCHS)
    return model, losses, accuracies


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", default=DEFAULT_OUT_DIR)
    args = parser.parse_args(argv)
    reason = common.unavailable_reason("cpu")
    if reason:
        return common.skip(reason)
    torch, np = common.torch, common.np
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    os.makedirs(args.out_dir, exist_ok=True)

    x_np, labels = make_data()
    np.save(os.path.join(args.out_dir, "x.npy"), x_np)
    for name, y in labels.items():
        np.save(os.path.join(args.out_dir, name), y)
    inits = {}
    for k in (1, 3, 10):
        torch.manual_seed(INIT_TORCH_SEED)
        inits[k] = common.model_tensors(Mlp(k))
        common.write_safetensors(os.path.join(args.out_dir, f"init_k{k}.safetensors"), inits[k])

    expected = {
        "schema": "mlpwb.parity/1",
        "generator": "/usr/bin/python3 bench/make_task_parity_fixture.py",
        "framework": f"torch {torch.__version__}",
        "numpy": np.__version__,
        "data": {"features": "x.npy", "rows": ROWS, "columns": FEATURES, "seed": DATA_SEED,
                 "features_sha256": file_sha256(os.path.join(args.out_dir, "x.npy"))},
        "model": {"hidden": list(HIDDEN), "activation": "tanh", "init_torch_seed": INIT_TORCH_SEED},
        "optimizer": ADAM,
        "train": {"epochs": EPOCHS, "batch_size": BATCH_SIZE, "shuffle": False, "standardize": False,
                  "val_split": 0.0, "zero_grad": "once", "dtype": "float32"},
        "cases": {},
    }
    x32 = torch.from_numpy(x_np)
    for name, case in CASES.items():
        y_np = labels[case["labels"]]
        y = torch.from_numpy(standardised(y_np) if case["task"] == "regression" else y_np)
        init = inits[case["outputs"]]
        model, losses, accuracies = train(case, x32, y, init, torch.float32)
        final = common.model_tensors(model)
        final_file = f"final_{name}.safetensors"
        common.write_safetensors(os.path.join(args.out_dir, final_file), final)
        model64, losses64, _ = train(case, x32, y.double(), init, torch.float64)
        weight_diff, loss_diff = float64_distance(final, losses, model64, losses64)
        entry = dict(case)
        entry.update({"init_weights": f"init_k{case['outputs']}.safetensors", "final_weights": final_file,
                      "epoch_train_loss": losses, "checksum": checksums(final),
                      "float64_reference": {"max_abs_weight_diff": weight_diff,
                                            "max_abs_epoch_loss_diff": loss_diff}})
        if case["task"] == "multiclass":
            entry["epoch_train_accuracy"] = accuracies
        expected["cases"][name] = entry
        print(f"{name:20s} loss per epoch {', '.join(f'{v:.6f}' for v in losses)}  "
              f"|w32 - w64|max {weight_diff:.2e}  |loss32 - loss64|max {loss_diff:.2e}")
    common.write_json_atomic(os.path.join(args.out_dir, "expected.json"), expected)
    total = sum(os.path.getsize(os.path.join(args.out_dir, f)) for f in os.listdir(args.out_dir))
    print(f"wrote {args.out_dir} ({total / 1024:.0f} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
