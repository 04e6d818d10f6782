#!/usr/bin/python3
"""Writes a seeded synthetic binary data set as a .npy pair for the peers and the workbench.

  /usr/bin/python3 bench/peers/make_dataset.py --rows 100000 --features 61 --seed 1 --out-dir /tmp/wb100k

writes OUT_DIR/x.npy (float32, (rows, features), C order) and OUT_DIR/y.npy (float32, (rows,), 0/1).
The label comes from a fixed random tanh "teacher" network (see common.teacher_dataset), so a
small MLP can learn it. Needs numpy only.
"""

import argparse
import os
import sys

import common


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100000)
    parser.add_argument("--features", type=int, default=61)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out-dir", required=True)
    args = parser.parse_args(argv)
    if args.rows < 1 or args.features < 1:
        parser.error("--rows and --features must be at least 1")
    if common.np is None:
        return common.skip(f"numpy is not importable by {sys.executable}; use /usr/bin/python3")

    os.makedirs(args.out_dir, exist_ok=True)
    x, y = common.teacher_dataset(args.rows, args.features, args.seed)
    common.np.save(os.path.join(args.out_dir, "x.npy"), x)
    common.np.save(os.path.join(args.out_dir, "y.npy"), y)
    print(f"wrote {args.out_dir}/x.npy {x.shape} and y.npy {y.shape} (positives {y.mean():.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
