#!/usr/bin/env python3
"""The table of bench/compare.sh: one row per run, from the RunRecords it wrote.

  python3 bench/compare_table.py --manifest OUT/manifest.tsv [--markdown OUT/compare.md]
      [--results bench/RESULTS.md --section "CPU: every peer ..."] [--command "..."] [--note "..."]

The manifest has one tab-separated line per program run: key, name, repeat, status
(ran | skipped | failed), RunRecord path, message. Per run name the table shows:
  * median epoch ms: the median over repeats of each RunRecord's summary.median_epoch_ms (the
    median epoch time without the warm-up epoch 1), with the min-max over repeats;
  * x fastest: that median over the smallest median in the table;
  * final loss and accuracy of the last repeat, and the loss at epoch K, the smallest epoch count
    of all runs, so runs of different lengths compare at the same point (every run starts from
    the same weights on the same rows in the same order).
Skipped and failed runs get a row that says why. Prints the table; --markdown writes it with the
machine's description; --results replaces (or appends) the section between this script's markers.
Needs only the Python standard library.
"""

import argparse
import csv
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys


def read_manifest(path):
    """[{key, name, repeat, status, record, message}] in run order."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f, delimiter="\t"))
    fields = ("key", "name", "repeat", "status", "record", "message")
    return [dict(zip(fields, row + [""] * (len(fields) - len(row)))) for row in rows if row]


def load_record(path):
    """The RunRecord at `path`, or None when it is missing or unreadable."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def group_runs(entries):
    """{name: {"key", "records": [...], "skipped": [msg], "failed": [msg]}} in first-seen order."""
    groups = {}
    for entry in entries:
        group = groups.setdefault(entry["name"], {"key": entry["key"], "records": [], "skipped": [], "failed": []})
        record = load_record(entry["record"]) if entry["status"] == "ran" else None
        if entry["status"] == "ran" and record is not None and record.get("status") == "completed":
            group["records"].append(record)
        elif entry["status"] == "skipped":
            group["skipped"].append(entry["message"])
        else:
            why = entry["message"] or (f"run {record.get('status')}: {record.get('message')}" if record
                                       else "no RunRecord written")
            group["failed"].append(why)
    return groups


def loss_at(record, epoch):
    """train_loss of `epoch` (1-based) in the record, or None."""
    epochs = record.get("epochs") or []
    return epochs[epoch - 1]["train_loss"] if 0 < epoch <= len(epochs) else None


def framework_of(record):
    """A short "framework version" label from the record's environment."""
    env = record.get("environment") or {}
    if env.get("framework_package"):
        return env["framework_package"].replace("python3-torch ", "torch ") + " (Debian)"
    if env.get("framework"):
        return env["framework"]
    # The workbench's own record: its backend and how it was built.
    built = ", ".join(v for v in (env.get("compiler"), env.get("build_type"),
                                  f"Eigen {env['eigen']}" if env.get("eigen") else None) if v)
    return f"mlpwb {env.get('backend', '?')} backend ({built})" if built else f"mlpwb {env.get('backend', '?')}"


def summarize_groups(groups):
    """Rows of the table: dicts with the numbers, or a reason for runs that did not complete."""
    rows = []
    for name, group in groups.items():
        if not group["records"]:
            reason = (group["failed"] or group["skipped"] or ["no run"])[0]
            rows.append({"name": name, "status": "failed" if group["failed"] else "skipped", "reason": reason})
            continue
        medians = [r["summary"]["median_epoch_ms"] for r in group["records"]]
        last = group["records"][-1]
        rows.append({
            "name": name, "status": "ran", "framework": framework_of(last),
            "epochs": len(last["epochs"]), "repeats": len(medians),
            "median": statistics.median(medians), "low": min(medians), "high": max(medians),
            "loss": last["summary"]["final"]["train_loss"],
            "accuracy": last["summary"]["final"]["train_accuracy"],
            "record": last, "failed_repeats": len(group["failed"]),
        })
    ran = [r for r in rows if r["status"] == "ran"]
    if ran:
        fastest = min(r["median"] for r in ran)
        common_epoch = min(r["epochs"] for r in ran)
        for r in ran:
            r["ratio"] = r["median"] / fastest
            r["loss_at"] = loss_at(r["record"], common_epoch)
        rows.sort(key=lambda r: (r["status"] != "ran", r.get("median", 0.0)))
    return rows, (min(r["epochs"] for r in ran) if ran else None)


def fmt(value, pattern):
    return pattern.format(value) if value is not None else "—"


def markdown_table(rows, common_epoch):
    """The table as Markdown lines."""
    k = common_epoch if common_epoch is not None else "K"
    lines = [f"| run | framework | epochs | median epoch ms | min–max over repeats | × fastest | "
             f"final loss | final acc | loss @ epoch {k} |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        if r["status"] != "ran":
            lines.append(f"| {r['name']} | — | — | {r['status']}: {r['reason']} | | | | | |")
            continue
        spread = f"{r['low']:.2f}–{r['high']:.2f}" if r["repeats"] > 1 else "(1 run)"
        if r["failed_repeats"]:
            spread += f" ({r['failed_repeats']} failed)"
        lines.append(f"| {r['name']} | {r['framework']} | {r['epochs']} | {r['median']:.2f} | {spread} | "
                     f"{r['ratio']:.1f} | {fmt(r['loss'], '{:.4f}')} | {fmt(r['accuracy'], '{:.4f}')} | "
                     f"{fmt(r['loss_at'], '{:.4f}')} |")
    return lines


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def memory_gib():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) / (1024 * 1024)
    except (OSError, ValueError):
        pass
    return None


def gpu_names():
    """Names of the NVIDIA GPUs nvidia-smi lists, or [] without one."""
    try:
        done = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return []
    return [line.strip() for line in done.stdout.splitlines() if line.strip()] if done.returncode == 0 else []


def os_name():
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return platform.platform()


def machine_lines(rows, load_before, load_after):
    """The machine's description: CPU, cores, memory, OS, GPUs, load, and what each run used."""
    memory = memory_gib()
    lines = [f"- CPU: {cpu_model()}, {os.cpu_count()} hardware threads"
             + (f", {memory:.0f} GiB" if memory else "") + f"; {os_name()}; kernel {platform.release()}"]
    gpus = gpu_names()
    lines.append(f"- GPU: {'; '.join(gpus)}" if gpus else "- GPU: none (nvidia-smi lists none)")
    load_after = load_after or " ".join(f"{v:.2f}" for v in os.getloadavg())
    lines.append(f"- load average (1/5/15 min) before: {load_before or 'not recorded'}; after: {load_after}")
    described = {}  # one line per distinct set-up, naming the runs that share it
    for r in rows:
        if r["status"] != "ran":
            continue
        env = r["record"].get("environment") or {}
        threads = env.get("threads")
        extra = f", python {env['python']}" if env.get("python") else ""
        setup = (f"{r['framework']}, device {env.get('device', '?')}, "
                 f"threads {threads if threads is not None else 'framework default'}{extra}")
        described.setdefault(setup, []).append(r["name"])
    lines += [f"- {', '.join(names)}: {setup}" for setup, names in described.items()]
    return lines


def section_text(title, rows, common_epoch, command, note, load_before, load_after):
    today = datetime.date.today().isoformat()
    parts = [f"## {title} ({today})", ""]
    if note:
        parts += [note, ""]
    if command:
        parts += [f"Command: `{command}`", ""]
    parts += ["Machine:", *machine_lines(rows, load_before, load_after), ""]
    parts += markdown_table(rows, common_epoch)
    parts += ["", "Median epoch ms: per repeat, the RunRecord's median epoch time without the warm-up "
              "epoch 1 (compilation, tracing, capture); the median of those over repeats. Every run "
              "starts from the same initial weights on the same rows in the same order, so the "
              f"losses at epoch {common_epoch} compare like for like."]
    return "\n".join(parts) + "\n"


def replace_section(path, marker, text):
    """Puts `text` between the marker comments in `path`, replacing an earlier one or appending."""
    begin, end = f"<!-- {marker} begin -->", f"<!-- {marker} end -->"
    block = f"{begin}\n{text}{end}\n"
    try:
        with open(path) as f:
            content = f.read()
    except FileNotFoundError:
        content = ""
    if begin in content and end in content:
        head, rest = content.split(begin, 1)
        content = head + block + rest.split(end, 1)[1].lstrip("\n")
    else:
        content = content.rstrip("\n") + ("\n\n" if content else "") + block
    with open(path, "w") as f:
        f.write(content)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--markdown", help="write the section (table + machine) to this file")
    parser.add_argument("--results", help="Markdown file whose marked section to replace, e.g. bench/RESULTS.md")
    parser.add_argument("--section", default="Every peer and the workbench on the same data",
                        help="section title (also its marker in --results)")
    parser.add_argument("--command", default="", help="the command that produced the runs")
    parser.add_argument("--note", default="", help="a paragraph to put above the table")
    parser.add_argument("--load-before", default="", help="load average when the runs started")
    parser.add_argument("--load-after", default="", help="load average when they ended (default: now)")
    args = parser.parse_args(argv)

    rows, common_epoch = summarize_groups(group_runs(read_manifest(args.manifest)))
    if not rows:
        print("no runs in the manifest", file=sys.stderr)
        return 1
    print("\n".join(markdown_table(rows, common_epoch)))
    text = section_text(args.section, rows, common_epoch, args.command, args.note, args.load_before,
                        args.load_after)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    if args.results:
        replace_section(args.results, f"compare.sh: {args.section}", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
