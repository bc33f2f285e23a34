#!/usr/bin/env python3
"""Prints the slowest unit tests, unit suites and e2e suites of a `make test` run, with their seconds.

Reads Swift Testing's console lines ("✔ Test x() passed after 1.2 seconds.", "✔ Suite X passed after …";
each "Test run with …" line ends one `swift test` pass) and run-all.sh's "== suite-x.sh took N s" lines
from the logs named on the command line. Where the time went is what keeps `make test` under its
budget (issue 37), so every run prints it at its end.

Swift Testing stamps every test of a parallel pass as started when the pass begins, so there a
test's seconds include its wait for a free place; only a pass run one test at a time gives each
test's own seconds. The headings say which is which.
"""
import re
import sys

COUNT = 20
RESULT = re.compile(r"[✔✘] (Test|Suite) (.+?) (?:passed|failed) after ([0-9.]+) seconds")
PASS_END = re.compile(r"[✔✘] Test run with (\d+) tests? in \d+ suites? (?:passed|failed) after ([0-9.]+) seconds")
E2E = re.compile(r"^== (suite-\S+) took (\d+) s(?:, CPU (\d+) s)?")


def table(title, rows):
    if not rows:
        return
    print(f"== the slowest {min(COUNT, len(rows))} {title}")
    for seconds, name in sorted(rows, reverse=True)[:COUNT]:
        print(f"{seconds:8.1f} s  {name}")


def main(paths):
    passes, e2e = [], []
    tests, suites = [], []
    for path in paths:
        try:
            lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
        except OSError:
            continue
        for line in lines:
            if m := PASS_END.search(line):
                passes.append((int(m.group(1)), float(m.group(2)), tests, suites))
                tests, suites = [], []
            elif m := RESULT.search(line):
                kind, name, seconds = m.groups()
                (tests if kind == "Test" else suites).append((float(seconds), name))
            elif m := E2E.match(line):
                e2e.append((float(m.group(2)), m.group(1), int(m.group(3) or 0)))
    for count, wall, tests, suites in passes:
        # A pass run one test at a time ends its tests one after another: their seconds add up to the wall time.
        alone = sum(s for s, _ in tests) <= wall * 1.05
        how = "alone: each one's own seconds" if alone else "in parallel: seconds include the wait for a free place"
        print(f"== unit pass of {count} tests: {wall:.0f} s wall time ({how})")
        table("unit tests of that pass", tests)
        table("unit suites of that pass", [row for row in suites if row[0] > 0.05])
    # A suite's CPU: itself and the processes it waited for (run-all.sh); 0 in a log that has none.
    title = f"e2e suites (of {len(e2e)}, {sum(s for s, _, _ in e2e):.0f} s added up, CPU {sum(c for _, _, c in e2e)} s)"
    table(title, [(seconds, f"{name} (CPU {cpu} s)") for seconds, name, cpu in e2e])


if __name__ == "__main__":
    main(sys.argv[1:])
