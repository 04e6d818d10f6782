#!/usr/bin/env python3
"""How fast mlpwb loads a CSV: a seeded 100,000 x 62 file (61 features + label, ~56 MB).

  /usr/bin/python3 bench/csv_load_bench.py [--build build] [--repeats 5]

Writes the file once into bench/out/ with numpy, then runs `mlpwb dataset --data FILE` `--repeats`
times and reports the median of the load time it prints (parsing, checks and the SHA-256 hash; the
process start is not included). One core: the reader is single-threaded.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def write_csv(path, rows, features, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(rows, features)).astype(np.float32) * rng.uniform(0.1, 100, size=features)
    y = (rng.random(rows) < 0.4).astype(np.int32)
    header = ",".join([f"f{i}" for i in range(features)] + ["label"])
    table = np.column_stack([x, y])
    np.savetxt(path, table, delimiter=",", header=header, comments="",
               fmt=["%.7g"] * features + ["%d"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(os.path.dirname(HERE), "build"))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rows", type=int, default=100000)
    args = parser.parse_args()
    out_dir = os.path.join(HERE, "out")
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"load_{args.rows}x62.csv")
    if not os.path.exists(path):
        write_csv(path, args.rows, 61, seed=7)
    times = []
    for _ in range(args.repeats):
        out = subprocess.run([os.path.join(args.build, "cli", "mlpwb"), "dataset", "--data", path],
                             check=True, stdout=subprocess.PIPE, text=True).stdout
        times.append(float(re.search(r"loaded:\s+([\d.]+) ms", out).group(1)))
    size_mb = os.path.getsize(path) / 1e6
    print(f"{args.rows} x 62 CSV, {size_mb:.1f} MB: median load {statistics.median(times):.1f} ms "
          f"(min {min(times):.1f}, max {max(times):.1f}, {args.repeats} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
