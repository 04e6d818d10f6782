#!/usr/bin/env python3
"""The cost of `--out`: the same run with and without a RunRecord, interleaved, medians of repeats.

  python3 bench/journal_bench.py --mlpwb build/cli/mlpwb [--epochs 4000] [--repeats 9]

Runs `mlpwb train --builtin --rows 500 --batch-size 512 --epochs N --quiet` without and with
`--out run.json` (the record written at the start and at the end, one epoch-journal line per epoch),
alternating, and prints the median wall time of each (process start to exit) and the overhead in
percent. The issue's bar: at most 10 % for 4,000 epochs. Not a unit test: it times real processes.
"""

import argparse
import os
import statistics
import subprocess
import tempfile
import time


def timed(cmd):
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mlpwb", default="build/cli/mlpwb")
    ap.add_argument("--epochs", type=int, default=4000)
    ap.add_argument("--repeats", type=int, default=9)
    args = ap.parse_args()
    base = [args.mlpwb, "train", "--builtin", "--rows", "500", "--batch-size", "512",
            "--epochs", str(args.epochs), "--quiet"]
    without, with_out = [], []
    with tempfile.TemporaryDirectory() as folder:
        record = os.path.join(folder, "run.json")
        timed(base)  # warm the page cache and the binary
        for _ in range(args.repeats):
            without.append(timed(base))
            with_out.append(timed(base + ["--out", record]))
    a, b = statistics.median(without), statistics.median(with_out)
    print(f"epochs {args.epochs}, {args.repeats} repeats each, interleaved; load average {os.getloadavg()[0]:.2f}")
    print(f"without --out: median {a:.3f} s (min {min(without):.3f}, max {max(without):.3f})")
    print(f"with --out:    median {b:.3f} s (min {min(with_out):.3f}, max {max(with_out):.3f})")
    print(f"overhead: {100 * (b - a) / a:+.1f} %")


if __name__ == "__main__":
    main()
