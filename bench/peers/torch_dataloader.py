#!/usr/bin/python3
"""PyTorch peer: the founding training loop as posted (with the answer's sigmoid fix).

The loop is the workbench's own (`mlpwb export --framework torch`, the code `mlpwb train --backend
torch --preset "Seed PyTorch loop"` runs): a DataLoader over a TensorDataset fetching and collating
row by row, `.to(device)` per batch, `model.zero_grad()` + `optimizer.zero_grad()`, a Sigmoid +
BCELoss, Adam with foreach=False, fp32, and `loss.item()` after every step.

Run with Debian's PyTorch (needs a built mlpwb, see exported_loop.py):
  /usr/bin/python3 bench/peers/torch_dataloader.py --data x.npy --labels y.npy --epochs 200 \\
      --device cpu --threads 2 --out run.json
Prints one JSON line per epoch and the median epoch time (warm-up epoch 1 excluded).
"""

import sys

import exported_loop

SWITCHES = {"data_path": "per_sample_gather", "launch": "eager_sync", "loss": "sigmoid_bce",
            "zero_grad": "twice", "optimizer_kernel": "per_tensor", "precision": "fp32"}

if __name__ == "__main__":
    sys.exit(exported_loop.run(__doc__, "PyTorch (DataLoader)", "torch", SWITCHES))
