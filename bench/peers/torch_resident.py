#!/usr/bin/python3
"""PyTorch peer: the same model over resident tensors, sliced directly, with BCEWithLogitsLoss.

The answer's first fixes applied to the founding loop, and nothing else, as the workbench's own
loop (`mlpwb export --framework torch`): the rows on the device once and sliced per batch, one
`optimizer.zero_grad()`, BCEWithLogitsLoss on the logit, Adam with foreach=False, fp32, and the
epoch's loss summed on the device and read once per epoch (no sync per step).

Run with Debian's PyTorch (needs a built mlpwb, see exported_loop.py):
  /usr/bin/python3 bench/peers/torch_resident.py --data x.npy --labels y.npy --epochs 200 \\
      --device cpu --threads 2 --out run.json
"""

import sys

import exported_loop

SWITCHES = {"data_path": "device_resident", "launch": "eager", "loss": "bce_with_logits",
            "zero_grad": "once", "optimizer_kernel": "per_tensor", "precision": "fp32"}

if __name__ == "__main__":
    sys.exit(exported_loop.run(__doc__, "PyTorch (resident tensors)", "torch", SWITCHES))
