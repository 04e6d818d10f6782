#!/usr/bin/env python3
"""Fails when a test suite skipped anything that the allow-list does not excuse.

    scripts/check-skips.py JUNIT [--allow FILE] [--require SUITE ...]

JUNIT is ctest's JUnit XML (`ctest --output-junit FILE --test-output-size-passed 8000000`: without the
size, ctest keeps only the first 1 KB of a passed suite's output and a late skip goes unseen;
scripts/setup.sh test writes BUILD_DIR/ctest-junit.xml so). Every skip is read from Qt Test's own
lines, `SKIP   : Class::function(data tag) reason`: a suite that skipped as a whole (ctest says
"Skipped": nothing passed, nothing failed; tests/CMakeLists.txt) and a function or data row skipped
inside a suite that otherwise passed. Each is checked against FILE (default tests/skip-allowlist.txt):
lines of `SUITE-GLOB FUNCTION-GLOB REASON...`, the function written as Qt prints it, `name(tag)`.
--require SUITE: that suite must have run (be in the results, not skipped as a whole).
Prints every skip with its reason and exits 1 on a skip not allowed, a required suite that did not
run, or results without a single suite.
"""
import argparse
import fnmatch
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

SKIP_LINE = re.compile(r"^SKIP   : (\w+)::(\w+)\((.*?)\)(?: (.*))?$")


def read_allow_list(path):
    entries = []
    for number, line in enumerate(Path(path).read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = line.split(None, 2)
        if len(fields) < 3:
            sys.exit(f"{path}:{number}: an entry is SUITE-GLOB FUNCTION-GLOB REASON (the reason is required)")
        entries.append((fields[0], fields[1], fields[2]))
    return entries


def skips_of(case):
    """(function, reason) for each skip of one ctest test case; a whole-suite skip without a SKIP line is '*'."""
    out = case.findtext("system-out") or ""
    found = []
    for line in out.splitlines():
        m = SKIP_LINE.match(line)
        if m:
            found.append((f"{m.group(2)}({m.group(3)})", m.group(4) or "(no reason given)"))
    if case.get("status") == "notrun" and not found:
        skipped = case.find("skipped")
        found.append(("*", skipped.get("message", "") if skipped is not None else "not run"))
    return found


def main():
    root = Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("junit")
    parser.add_argument("--allow", default=str(root / "tests" / "skip-allowlist.txt"))
    parser.add_argument("--require", nargs="*", default=[])
    args = parser.parse_args()

    try:
        cases = ET.parse(args.junit).getroot().iter("testcase")
    except (OSError, ET.ParseError) as e:
        sys.exit(f"check-skips: cannot read the test results {args.junit}: {e}")
    allow = read_allow_list(args.allow)
    status = {}
    refused = allowed = 0
    for case in cases:
        suite = case.get("name")
        status[suite] = case.get("status")
        for function, reason in skips_of(case):
            why = next((w for s, f, w in allow if fnmatch.fnmatchcase(suite, s) and fnmatch.fnmatchcase(function, f)),
                       None)
            whole = " (the whole suite)" if case.get("status") == "notrun" else ""
            if why is None:
                refused += 1
                print(f"REFUSED  {suite} {function}{whole}: {reason}")
            else:
                allowed += 1
                print(f"allowed  {suite} {function}{whole}: {reason}  [{why}]")
    problems = []
    if not status:
        problems.append(f"{args.junit} holds no test suite")
    for suite in args.require:
        if status.get(suite) is None:
            problems.append(f"{suite} did not run (not in the results)")
        elif status[suite] == "notrun":
            problems.append(f"{suite} must run here, but it skipped")
    if refused:
        problems.append(f"{refused} skip(s) not on the allow-list ({args.allow}): make the suite run here, "
                        "or add an entry with its reason if it truly cannot")
    ran = sum(1 for s in status.values() if s != "notrun")
    print(f"check-skips: {len(status)} suites, {ran} ran, {allowed} skip(s) allowed, {refused} refused")
    for p in problems:
        print(f"check-skips: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
