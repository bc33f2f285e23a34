#!/usr/bin/env python3
"""The steps of `make test`, read from the suites themselves.

Each unit-test suite says which step it runs in with a Swift Testing tag on its `@Suite`
(Tests/TestLanes/Tag+Lanes.swift): `.virtualTime`, `.realTimeCalls`, `.timed` or `.ownProcess`; a
suite with none runs in the shared pass. This prints the `swift test --filter` regexes
scripts/make-test.sh uses, as shell assignments:

    VIRTUAL  the suites tagged .virtualTime      CALLS  the suites tagged .realTimeCalls
    ALONE    the suites tagged .timed            OWN    the suites tagged .ownProcess
    TIMED    all four: kept out of the shared pass

It refuses (exit 1, naming the file) a suite that runs whole calls on the virtual clock
(`VirtualCallHarness.run`, a `TestLine`) in the shared pass — beside the real-time checks it would
keep a core busy; `.virtualTime`, or `.timed` where it must run alone — and a tag that is not one
of the four.

    python3 scripts/test-lanes.py             shell assignments for make-test.sh
    python3 scripts/test-lanes.py --list      each lane's suites, one per line
"""
import pathlib
import re
import sys

LANES = {"virtualTime": "VIRTUAL", "realTimeCalls": "CALLS", "timed": "ALONE", "ownProcess": "OWN"}
# An `@Suite(…)` attribute (its arguments may nest one level of parentheses) and the type it marks.
SUITE = re.compile(r"@Suite(?P<args>\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\))?\s+(?:final\s+)?(?:struct|class|enum|actor)\s+(?P<name>\w+)")
TAGS = re.compile(r"\.tags\(([^)]*)\)")
VIRTUAL_CALLS = re.compile(r"VirtualCallHarness\.run|TestLine\(")


def lanes(root: pathlib.Path) -> tuple[dict[str, list[str]], list[str]]:
    found: dict[str, list[str]] = {lane: [] for lane in LANES}
    problems: list[str] = []
    for path in sorted(root.glob("Tests/**/*.swift")):
        text = path.read_text(encoding="utf-8")
        suites = list(SUITE.finditer(text))
        for suite in suites:
            tags = [t.strip().lstrip(".") for m in TAGS.finditer(suite.group("args") or "") for t in m.group(1).split(",")]
            unknown = [t for t in tags if t not in LANES]
            if unknown:
                problems.append(f"{path}: {suite.group('name')} has tag(s) {', '.join(unknown)}; the lanes are {', '.join('.' + l for l in LANES)}")
            chosen = [t for t in tags if t in LANES]
            if len(chosen) > 1:
                problems.append(f"{path}: {suite.group('name')} is in more than one lane ({', '.join(chosen)})")
            for tag in chosen[:1]:
                found[tag].append(suite.group("name"))
        # Whole calls on the virtual clock belong in their own step: every suite of such a file.
        if VIRTUAL_CALLS.search(text) and not path.name.startswith(("VirtualCallHarness", "TestLine.")):
            for name in sorted({suite.group("name") for suite in suites}):
                if name not in found["virtualTime"] + found["timed"]:
                    problems.append(f"{path}: {name} runs calls in virtual time (VirtualCallHarness.run or TestLine) without .tags(.virtualTime)")
    return found, problems


def regex(names: list[str]) -> str:
    # Matches the suite in a test id (Target.Suite/test()); a never-matching name when the lane is empty.
    return r"\.(" + "|".join(names or ["NoSuiteInThisLane"]) + r")/"


def main() -> int:
    found, problems = lanes(pathlib.Path(__file__).resolve().parent.parent)
    if problems:
        print("test-lanes: " + "\n test-lanes: ".join(problems), file=sys.stderr)
        return 1
    if sys.argv[1:] == ["--list"]:
        for tag, names in found.items():
            print(f"{LANES[tag]} (.{tag}): {len(names)} suites")
            for name in sorted(names):
                print("  " + name)
        return 0
    every = [name for names in found.values() for name in names]
    for tag, names in found.items():
        print(f"{LANES[tag]}='{regex(names)}'")
    print(f"TIMED='{regex(every)}'")
    return 0


if __name__ == "__main__":
    sys.exit(main())
