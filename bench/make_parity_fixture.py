#!/usr/bin/python3
"""Generates the PyTorch parity fixture for the C++ trainer and optimizers: tests/data/parity/.

Regenerate (from the repository root, with Debian's PyTorch 1.13 + numpy; nothing else needed):

    /usr/bin/python3 bench/make_parity_fixture.py

(--out-dir DIR writes elsewhere). The output is deterministic on a given PyTorch build: one
thread, deterministic algorithms, fixed seeds, no shuffling.

What it writes (about 0.3 MB):
  x.npy                     features, float32 (1000, 61), C order, NOT standardized
  y.npy                     labels, float32 (1000,), 0/1 (a seeded tanh "teacher" network's label)
  init.safetensors          initial weights: torch.manual_seed(0), then nn.Linear's default init
                            for 61 -> 20 -> 10 -> 1; names "layers.{i}.weight" [out, in] and
                            "layers.{i}.bias" [out], float32
  final_<case>.safetensors  the weights after training, one file per case (below)
  expected.json             per case: hyperparameters, per-epoch mean train loss (and accuracy),
                            final-weight checksums, and how far a float64 run of the same steps
                            lands from the float32 one (a yardstick for tolerances)

The training every case does (what the C++ test must do to match):
  * start from init.safetensors (do not initialize from a seed);
  * use x.npy / y.npy as they are: no standardization, no validation split, no shuffling;
  * 3 epochs of batches of 256 rows taken in file order: rows [0,256), [256,512), [512,768),
    [768,1000) -- the last batch is partial (232 rows) and its loss is its own mean;
  * per step: zero the gradients once, forward in float32 (tanh hidden layers, one output logit),
    loss = mean over the batch, backward, one optimizer step (single-tensor "for-loop" update);
  * train loss of an epoch = sum over batches of (batch loss x batch rows) / 1000, i.e. the mean
    per-sample loss with each batch's loss taken before that batch's update (float64 sum here);
  * train accuracy likewise, counting logit >= 0 (sigmoid case: p >= 0.5) against the label
    (for information: one logit near 0 rounding the other way moves it by 0.001).
Cases (all: loss mean over the batch, float32):
  adam_logits       Adam lr 1e-3 (betas 0.9/0.999, eps 1e-8), BCEWithLogitsLoss
  adam_sigmoid_bce  Adam lr 1e-3, nn.Sigmoid + nn.BCELoss (log clamped at -100, as PyTorch)
  sgd_nesterov      SGD lr 0.1, momentum 0.9, nesterov, weight_decay 1e-4, BCEWithLogitsLoss
  rmsprop           RMSprop lr 1e-2 (alpha 0.99, eps 1e-8, no momentum, not centered), BCEWithLogitsLoss
  adamw             AdamW lr 1e-3, weight_decay 1e-2, BCEWithLogitsLoss
Compare the C++ final weights with final_<case>.safetensors and the per-epoch losses with
expected.json. Exact equality is not expected: PyTorch's GEMMs sum in another order than the C++
code, so compare with a tolerance; expected.json's "float64_reference" says how far the float32
result is from the same steps run in float64, which bounds what float32 rounding alone can cause,
and "suggested_weight_atol" / "suggested_loss_atol" turn that into a tolerance (20x, at least 1e-5).
"""

import argparse
import hashlib
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "peers"))
import common  # noqa: E402  (bench/peers/common.py: MLP, safetensors, data generator)

ROWS = 1000
FEATURES = 61
HIDDEN = (20, 10)
DATA_SEED = 61
INIT_TORCH_SEED = 0
EPOCHS = 3
BATCH_SIZE = 256
DEFAULT_OUT_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                               "tests", "data", "parity")

# Each case: the optimizer (C++ OptimizerSpec fields, with PyTorch's defaults written out) and
# the loss. "torch" is the constructor the case runs, for a reader.
CASES = {
    "adam_logits": {
        "optimizer": {"kind": "adam", "lr": 1e-3, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8,
                      "weight_decay": 0.0},
        "loss": "bce_with_logits",
        "torch": "torch.optim.Adam(params, lr=1e-3); nn.BCEWithLogitsLoss()",
    },
    "adam_sigmoid_bce": {
        "optimizer": {"kind": "adam", "lr": 1e-3, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8,
                      "weight_decay": 0.0},
        "loss": "sigmoid_bce",
        "torch": "torch.optim.Adam(params, lr=1e-3); nn.Sigmoid() + nn.BCELoss()",
    },
    "sgd_nesterov": {
        "optimizer": {"kind": "sgd", "lr": 0.1, "momentum": 0.9, "dampening": 0.0, "nesterov": True,
                      "weight_decay": 1e-4},
        "loss": "bce_with_logits",
        "torch": "torch.optim.SGD(params, lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-4); "
                 "nn.BCEWithLogitsLoss()",
    },
    "rmsprop": {
        "optimizer": {"kind": "rmsprop", "lr": 1e-2, "alpha": 0.99, "eps": 1e-8, "momentum": 0.0,
                      "centered": False, "weight_decay": 0.0},
        "loss": "bce_with_logits",
        "torch": "torch.optim.RMSprop(params, lr=1e-2); nn.BCEWithLogitsLoss()",
    },
    "adamw": {
        "optimizer": {"kind": "adamw", "lr": 1e-3, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8,
                      "weight_decay": 1e-2},
        "loss": "bce_with_logits",
        "torch": "torch.optim.AdamW(params, lr=1e-3, weight_decay=1e-2); nn.BCEWithLogitsLoss()",
    },
}


def make_optimizer(spec, params):
    """The torch.optim optimizer for an OptimizerSpec-like dict, single-tensor (foreach=False)."""
    torch = common.torch
    kind = spec["kind"]
    if kind in ("adam", "adamw"):
        cls = torch.optim.Adam if kind == "adam" else torch.optim.AdamW
        return cls(params, lr=spec["lr"], betas=(spec["beta1"], spec["beta2"]), eps=spec["eps"],
                   weight_decay=spec["weight_decay"], foreach=False)
    if kind == "sgd":
        return torch.optim.SGD(params, lr=spec["lr"], momentum=spec["momentum"],
                               dampening=spec["dampening"], nesterov=spec["nesterov"],
                               weight_decay=spec["weight_decay"], foreach=False)
    if kind == "rmsprop":
        return torch.optim.RMSprop(params, lr=spec["lr"], alpha=spec["alpha"], eps=spec["eps"],
                                   momentum=spec["momentum"], centered=spec["centered"],
                                   weight_decay=spec["weight_decay"], foreach=False)
    raise ValueError(f"unknown optimizer kind {kind!r}")


def run_epochs(model, loss_func, optimizer, x, y, epochs, batch_size, right=None):
    """`epochs` epochs of batches in file order; returns (per-epoch mean losses, accuracies).

    Each batch: one zero_grad, forward, mean loss, backward, one optimizer step; its loss is read
    with .item() before the step and weighted by its rows. `right(outputs, targets)` marks the rows
    predicted right (None: no accuracy, the accuracies are None).
    """
    rows = x.shape[0]
    losses, accuracies = [], []
    for _ in range(epochs):
        loss_sum, correct = 0.0, 0
        for start in range(0, rows, batch_size):
            inputs, targets = x[start:start + batch_size], y[start:start + batch_size]
            optimizer.zero_grad()
            outputs = model(inputs)
            loss = loss_func(outputs, targets)
            loss.backward()
            optimizer.step()
            loss_sum += loss.item() * targets.shape[0]
            if right is not None:
                correct += int(right(outputs.detach(), targets).sum().item())
        losses.append(loss_sum / rows)
        accuracies.append(correct / rows if right is not None else None)
    return losses, accuracies


def train(case, x, y, init_tensors, dtype):
    """Trains one case from the initial weights; returns (model, per-epoch losses, accuracies).

    x (rows, features) and y (rows, 1) are tensors of `dtype`; batches are taken in file order.
    Speed does not matter here, so each batch's loss is read with .item() on the spot.
    """
    torch, nn = common.torch, common.nn
    sigmoid_output = case["loss"] == "sigmoid_bce"
    model = common.MLP(FEATURES, HIDDEN, output_sigmoid=sigmoid_output)
    model.load_state_dict({name: torch.from_numpy(a) for name, a in init_tensors.items()})
    model.to(dtype)
    loss_func = nn.BCELoss() if sigmoid_output else nn.BCEWithLogitsLoss()
    threshold = 0.5 if sigmoid_output else 0.0
    optimizer = make_optimizer(case["optimizer"], model.parameters())
    losses, accuracies = run_epochs(model, loss_func, optimizer, x, y, EPOCHS, BATCH_SIZE,
                                    lambda outputs, targets: (outputs >= threshold) == targets)
    return model, losses, accuracies


def checksums(tensors):
    """Per-tensor sum / sum of |w| (float64) and one sha256 over the float32 bytes in file order."""
    np = common.np
    digest = hashlib.sha256()
    per_tensor = {}
    for name, array in tensors.items():
        digest.update(np.ascontiguousarray(array, dtype="<f4").tobytes())
        per_tensor[name] = {"sum": float(array.astype(np.float64).sum()),
                            "abs_sum": float(np.abs(array.astype(np.float64)).sum())}
    return {"sha256_f32": digest.hexdigest(), "tensors": per_tensor}


def float64_distance(final, losses, model64, losses64):
    """(max |w32 - w64|, max |loss32 - loss64|): how far float32 rounding alone moved a case."""
    np = common.np
    final64 = {k: v.detach().numpy() for k, v in model64.state_dict().items()}
    weight_diff = max(float(np.abs(final[k].astype(np.float64) - final64[k]).max()) for k in final)
    return weight_diff, max(abs(a - b) for a, b in zip(losses, losses64))


def file_sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


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

    # Data: seeded teacher labels, saved as float32 C-order .npy.
    x_np, y_np = common.teacher_dataset(ROWS, FEATURES, DATA_SEED)
    x_path, y_path = os.path.join(args.out_dir, "x.npy"), os.path.join(args.out_dir, "y.npy")
    np.save(x_path, x_np)
    np.save(y_path, y_np)

    # Initial weights: nn.Linear's default init after torch.manual_seed(0).
    torch.manual_seed(INIT_TORCH_SEED)
    init_tensors = common.model_tensors(common.MLP(FEATURES, HIDDEN))
    common.write_safetensors(os.path.join(args.out_dir, "init.safetensors"), init_tensors)

    x32, y32 = torch.from_numpy(x_np), torch.from_numpy(y_np).reshape(-1, 1)
    expected = {
        "schema": "mlpwb.parity/1",
        "generator": "/usr/bin/python3 bench/make_parity_fixture.py",
        "framework": f"torch {torch.__version__}",
        "numpy": np.__version__,
        "data": {"features": "x.npy", "labels": "y.npy", "rows": ROWS, "columns": FEATURES,
                 "seed": DATA_SEED, "positives": int(y_np.sum()),
                 "features_sha256": file_sha256(x_path), "labels_sha256": file_sha256(y_path)},
        "model": {"hidden": list(HIDDEN), "activation": "tanh", "init_weights": "init.safetensors",
                  "init_torch_seed": INIT_TORCH_SEED},
        "train": {"epochs": EPOCHS, "batch_size": BATCH_SIZE,
                  "batches_per_epoch": -(-ROWS // BATCH_SIZE), "last_batch_rows": ROWS % BATCH_SIZE or BATCH_SIZE,
                  "shuffle": False, "standardize": False, "val_split": 0.0, "zero_grad": "once",
                  "dtype": "float32", "loss_reduction": "mean over the batch",
                  "epoch_loss": "sum(batch_loss * batch_rows) / rows, batch loss before the step"},
        "cases": {},
    }
    for name, case in CASES.items():
        model, losses, accuracies = train(case, x32, y32, init_tensors, torch.float32)
        final = common.model_tensors(model)
        final_file = f"final_{name}.safetensors"
        common.write_safetensors(os.path.join(args.out_dir, final_file), final)
        # The same steps in float64: how far float32 rounding alone moves the result.
        model64, losses64, _ = train(case, x32.double(), y32.double(), init_tensors, torch.float64)
        weight_diff, loss_diff = float64_distance(final, losses, model64, losses64)
        expected["cases"][name] = {
            "optimizer": case["optimizer"],
            "loss": case["loss"],
            "torch": case["torch"],
            "final_weights": final_file,
            "epoch_train_loss": losses,
            "epoch_train_accuracy": accuracies,
            "checksum": checksums(final),
            "float64_reference": {"max_abs_weight_diff": weight_diff, "max_abs_epoch_loss_diff": loss_diff},
            # A hint, not a law: 20x what float32 rounding alone causes, at least 1e-5.
            "suggested_weight_atol": max(1e-5, 20 * weight_diff),
            "suggested_loss_atol": max(1e-5, 20 * loss_diff),
        }
        print(f"{name:17s} loss per epoch {', '.join(f'{v:.6f}' for v in losses)}  "
              f"|w32 - w64|max {weight_diff:.2e}  |loss32 - loss64|max {loss_diff:.2e}")
    common.write_json_atomic(os.path.join(args.out_dir, "expected.json"), expected)
    total = sum(os.path.getsize(os.path.join(args.out_dir, f)) for f in os.listdir(args.out_dir))
    print(f"wrote {args.out_dir} ({total / 1024:.0f} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
