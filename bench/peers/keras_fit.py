#!/usr/bin/env python3
"""Keras peer: the founding post's model trained with model.fit.

The loop is the workbench's own (`mlpwb export --framework keras`, the code `mlpwb train --backend
keras` runs): Dense layers with the configured widths, `model.compile` with Adam and binary
cross-entropy, `model.fit` over the rows in file order, each epoch timed by a callback.

Run with the peers' venv (bench/peers/setup_venv.sh) and a built mlpwb (see exported_loop.py):
  .venv/bin/python bench/peers/keras_fit.py --data x.npy --labels y.npy --epochs 20 --device cpu --out run.json
"""

import sys

import exported_loop

SWITCHES = {"data_path": "device_resident", "launch": "graph_step", "loss": "bce_with_logits",
            "precision": "fp32"}

if __name__ == "__main__":
    sys.exit(exported_loop.run(__doc__, "Keras model.fit", "keras", SWITCHES))
