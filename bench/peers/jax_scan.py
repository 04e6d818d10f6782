#!/usr/bin/env python3
"""JAX peer: the whole epoch in one jit-compiled function, the steps in lax.scan.

The loop is the workbench's own (`mlpwb export --framework jax`, the code `mlpwb train --backend
jax` runs): the rows on the device, one epoch = one jit-compiled call with lax.scan over the
batches, Adam written out as torch.optim.Adam computes it, the stable binary cross-entropy on the
logit. --threads T pins the loop to T CPUs (XLA sizes its pool from the affinity mask).

Run with the peers' venv (bench/peers/setup_venv.sh) and a built mlpwb (see exported_loop.py):
  .venv/bin/python bench/peers/jax_scan.py --data x.npy --labels y.npy --epochs 20 --device cpu --out run.json
"""

import sys

import exported_loop

SWITCHES = {"data_path": "device_resident", "launch": "graph_step", "loss": "bce_with_logits",
            "precision": "fp32"}

if __name__ == "__main__":
    sys.exit(exported_loop.run(__doc__, "JAX jit+scan", "jax", SWITCHES))
