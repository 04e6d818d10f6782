#!/usr/bin/env python3
"""PyTorch peer: the workbench's exported loop in eager PyTorch over resident tensors.

The loop is the workbench's own (`mlpwb export --framework torch`, the code `mlpwb train --backend
torch` runs): rows resident on the device, each batch a slice, BCEWithLogitsLoss, one zero_grad,
torch.optim.Adam, fp32, no per-step host sync, eager (no compilation). --threads T sets PyTorch's
intra-op threads (OMP_NUM_THREADS) and pins the loop to T CPUs.

Run with the peers' venv (bench/peers/setup_venv.sh, PyTorch 2) and a built mlpwb:
  .venv/bin/python bench/peers/torch_eager.py --data x.npy --labels y.npy --epochs 20 --threads 2 --out run.json
"""

import sys

import exported_loop

SWITCHES = {"data_path": "device_resident", "launch": "eager", "loss": "bce_with_logits", "zero_grad": "once",
            "precision": "fp32"}

if __name__ == "__main__":
    sys.exit(exported_loop.run(__doc__, "PyTorch eager (exported loop)", "torch", SWITCHES))
