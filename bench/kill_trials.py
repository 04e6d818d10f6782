#!/usr/bin/env python3
"""kill -9 at random moments of a run: the RunRecord left behind must always load.

  python3 bench/kill_trials.py --mlpwb build/cli/mlpwb [--trials 50] [--seed 1]

Each trial starts `mlpwb train --out run.json` on the built-in data, kills it with SIGKILL after a
random delay (from before the first epoch to well into the run), then checks what a reader sees: the
record parses as JSON (it is written atomically), and the epoch journal beside a record left
"running" holds whole lines except at most a torn last one (the epoch in flight), so the workbench
loads every finished epoch. Prints one line per trial and a summary; exits 1 if any trial fails.
Not a unit test: it takes about a minute and uses the real binary.
"""

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time


def check(folder):
    """(ok, what a reader sees) for the record left in `folder`."""
    record_path = os.path.join(folder, "run.json")
    journal_path = record_path + ".epochs.jsonl"
    if not os.path.exists(record_path):
        return True, "no record yet (killed before the run started)"
    try:
        with open(record_path, encoding="utf-8") as f:
            record = json.load(f)
    except ValueError as exc:
        return False, f"the record does not parse: {exc}"
    epochs = len(record.get("epochs", []))
    if record.get("status") != "running" or not os.path.exists(journal_path):
        return True, f"{record.get('status')}, {epochs} epochs in the record"
    with open(journal_path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    whole, torn = 0, 0
    for i, line in enumerate(lines):
        if not line:
            continue
        try:
            json.loads(line)
            whole += 1
        except ValueError:
            if i < len(lines) - 1 and any(lines[i + 1:]):
                return False, f"journal line {i + 1} is torn but is not the last"
            torn += 1
    return True, f"running, {whole} epochs in the journal" + (" (+1 torn)" if torn else "")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mlpwb", required=True)
    parser.add_argument("--trials", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    failures = 0
    for trial in range(1, args.trials + 1):
        with tempfile.TemporaryDirectory(prefix="mlpwb-kill-") as folder:
            run = subprocess.Popen([os.path.abspath(args.mlpwb), "train", "--builtin", "--rows", "20000",
                                    "--epochs", "100000", "--quiet", "--out", "run.json"],
                                   cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            delay = rng.uniform(0.0, 1.5)
            time.sleep(delay)
            run.send_signal(signal.SIGKILL)
            run.wait()
            ok, seen = check(folder)
            failures += not ok
            print(f"trial {trial:3d}: killed after {delay:.3f} s: {'ok' if ok else 'FAILED'}: {seen}", flush=True)
    print(f"{args.trials - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
