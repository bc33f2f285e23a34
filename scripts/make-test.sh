#!/usr/bin/env bash
# `make test`: every unit test and every e2e suite, side by side where no check measures time.
#
#   1. One build: the tests, the server and the bench binary (the soak suite's load).
#   2. Side by side: the unit tests that measure no time, UNIT_WIDTH at a time, and the e2e suites
#      that may share the machine, VB_E2E_JOBS at a time. Both spend most of their time waiting on
#      calls in real time (serially 813 s of wall time for ~3 min of CPU, 29 Nov), and their RTP
#      ports are disjoint (unit tests 33000-50999, shared: Tests/TestSupport/TestPorts.swift; e2e suites 51000-57999;
#      the ports each side checks free and hands to a process come from ranges of its own: docs/testing.md).
#      Beside both from the start: the suites tagged `.ownProcess` (OWN), each measuring its own
#      process (the allocator's bytes) while it waits out real timers, in a process of their own.
#   3. Still beside the e2e suites, once the unit tests of step 2 have ended (the e2e suites run
#      ~150 s longer): the suites tagged `.virtualTime` (VIRTUAL), VIRTUAL_WIDTH at a time. Load
#      changes none of their verdicts; each keeps a core busy, which the e2e suites' checks must
#      bear, as they bear `make test-under-load`'s busy loops.
#   4. Three streams beside each other, nothing else beside them: the suites tagged
#      `.realTimeCalls` (CALLS: calls that must hear speech or keys in time), CALL_WIDTH at a time;
#      the suites tagged `.timed` (ALONE), one test at a time; and the e2e suites marked
#      `# e2e: alone` (the soak: every frame back, memory flat), one after the other.
#
# Every part runs even when one before it failed. The end shows where the time went
# (scripts/slowest.py), repeats what failed, and gives the wall time. Each suite's step is the tag
# on its `@Suite` (scripts/test-lanes.py prints the --filter regexes: VIRTUAL, CALLS, ALONE, OWN,
# and TIMED for all four). Environment: UNIT_WIDTH, VIRTUAL_WIDTH, CALL_WIDTH, SWIFT_BUILD_FLAGS,
# VB_E2E_JOBS. One argument, `unit` or `e2e`, runs only that half, step by step as above
# (`make unit-test`, `make e2e-test`).
set -uo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
# Every temporary file of the run (databases, sipp's and baresip's folders, Chromium's profiles,
# the e2e suites' folders) goes under one folder that goes when the run ends: a test that forgets
# to clean up costs nothing, where ~1 GB a day of runs was left in /tmp. 755: the test PostgreSQL
# server runs as its own user, in a folder beneath. The folder's name is the checkout's, the same
# every run (one run at a time per checkout): SwiftPM keys its cache of compiled package manifests
# on the whole environment, TMPDIR included, so a new name each run made the run's `swift`
# commands compile and link all 38 manifests again, once per environment (~25 s of CPU each time).
scratch=/tmp/vbtest.$(printf %s "$PWD" | cksum | cut -d' ' -f1)
rm -rf "$scratch" && mkdir -m 755 "$scratch" && export TMPDIR=$scratch
trap 'rm -rf "$scratch"' EXIT
parts=${1:-all}
case $parts in all|unit|e2e) ;; *) echo "usage: $0 [unit|e2e]" >&2; exit 2 ;; esac
runs() { [ "$parts" = all ] || [ "$parts" = "$1" ]; }   # runs unit|e2e: whether this half is run
lanes=$(python3 scripts/test-lanes.py) || { echo "make test: a suite's step is not clear (scripts/test-lanes.py, above)"; exit 1; }
eval "$lanes"   # VIRTUAL, CALLS, ALONE, OWN, and TIMED (all four)
width=${UNIT_WIDTH:-4} call_width=${CALL_WIDTH:-3} virtual_width=${VIRTUAL_WIDTH:-2}
flags=${SWIFT_BUILD_FLAGS--Xswiftc -gline-tables-only}   # the Makefile's default, when run by hand
unit=test-artifacts/unit.log e2e=test-artifacts/e2e.log
mkdir -p test-artifacts
rm -f "$unit" "$e2e" "$unit".*
touch "$unit" "$e2e"
failed=()
steps=()   # "name N s, CPU …": each step's wall time and CPU, printed at the end
# What each step kept busy: every core's busy time, any process's (/proc/stat: user, nice, system,
# irq, softirq), as a share of the cores' wall time. A step near 100 % is bound by the CPU, where
# running more at once only moves the wait; one far below it is waiting on real time.
busy_ticks() { awk '/^cpu /{print $2+$3+$4+$7+$8}' /proc/stat; }
milliseconds() { date +%s%3N; }
cores=$(nproc) hz=$(getconf CLK_TCK)
busy_started=$(busy_ticks) busy_mark=$busy_started
ms_started=$(milliseconds) ms_mark=$ms_started
cpu_share() {   # cpu_share TICKS MILLISECONDS: "CPU N s (P % of C cores)"
  local ms=$(( $2 > 0 ? $2 : 1 ))
  echo "CPU $(( $1 / hz )) s ($(( 100 * 1000 * $1 / (hz * cores * ms) )) % of $cores cores)"
}
step_done() {
  local busy ms
  busy=$(busy_ticks) ms=$(milliseconds)
  steps+=("$1 $(( (ms - ms_mark) / 1000 )) s, $(cpu_share $(( busy - busy_mark )) $(( ms - ms_mark )))")
  busy_mark=$busy ms_mark=$ms
}

# The docs and the sources first (a second): every relative link and anchor in the README and docs/ resolves.
python3 scripts/check-docs.py || failed+=("links in the README and docs/, or the API index (scripts/check-docs.py)")
# No test data in the product: no persona line or answer, no fixture text, in a string in Sources/.
{ python3 scripts/check-test-data.py --self-test && python3 scripts/check-test-data.py; } || failed+=("test data in Sources/ (scripts/check-test-data.py)")

# The e2e suites need the server and the bench binary (the soak's load); the unit tests the test
# bundle, and `--build-tests` builds every product with it. SWIFT_DETERMINISTIC_HASHING: SwiftPM 6.3
# lists a package's traits in its hash seed's order (swiftlang/swift-package-manager#10525), so
# each new plan reordered Hummingbird's two `-D` flags and half the runs recompiled Hummingbird and
# relinked everything (~30 s, more under load). The tests themselves run with hashing seeded.
build() { SWIFT_DETERMINISTIC_HASHING=1 swift build "$@"; }
# shellcheck disable=SC2086 # flags are words
if ! { if runs unit; then build --build-tests $flags; else build --product voicebridge $flags && build --product voicebridge-bench $flags; fi; }; then
  echo "make test: the build failed"
  exit 1
fi
# The command line's reference page is the binary's own help (scripts/cli-reference.sh makes it).
if ! diff -u docs/reference/cli.md <(scripts/cli-reference.sh .build/debug/voicebridge) >test-artifacts/cli-reference.diff; then
  cat test-artifacts/cli-reference.diff
  failed+=("docs/reference/cli.md differs from the binary's help (scripts/cli-reference.sh .build/debug/voicebridge > docs/reference/cli.md)")
fi
# The configuration reference is the server's reader and the example file's comments (scripts/config-reference.py).
if ! python3 scripts/config-reference.py .build/debug/voicebridge >test-artifacts/configuration.md \
   || ! diff -u docs/reference/configuration.md test-artifacts/configuration.md >test-artifacts/configuration-reference.diff; then
  cat test-artifacts/configuration-reference.diff
  failed+=("docs/reference/configuration.md differs from the server's keys and the example's comments, or a key has none (python3 scripts/config-reference.py .build/debug/voicebridge > docs/reference/configuration.md)")
fi
step_done build

# The unit tests: the test bundle run directly, as `swift test --skip-build` runs it. Not through
# `swift test`: SwiftPM locks .build for a whole `swift test`, so a second pass started beside
# another waited for it to end (2 Dec: the timed units waited 141 s for the call suites).
# NO_COLOR: plain lines in the logs, as `swift test` writes them.
unit_tests() { NO_COLOR=1 .build/debug/VoiceBridgePackageTests.xctest --testing-library swift-testing "$@"; }
# kept_run NAME COMMAND…: runs a unit pass with its lines kept in $unit.NAME, its exit status and
# seconds in $unit.NAME.status, for kept_pass to print once whatever runs beside it has printed.
kept_run() {
  local name=$1 started=$SECONDS; shift
  "$@" >"$unit.$name" 2>&1
  echo "$? $((SECONDS - started))" >"$unit.$name.status"
}
# kept_pass NAME HEADING FAILURE: a unit pass whose lines were kept in $unit.NAME (its exit status
# and seconds in $unit.NAME.status): printed under HEADING, added to the unit log, FAILURE counted
# if it failed.
kept_pass() {
  local status took
  read -r status took <"$unit.$1.status"
  echo "== $2: $took s"
  cat "$unit.$1" | tee -a "$unit"
  [ "$status" -eq 0 ] || failed+=("$3")
  rm -f "$unit.$1" "$unit.$1.status"
}

# 2. Side by side. The e2e suites print as each ends. Beside them, the unit tests that measure no
#    time, then (3) the call suites in virtual time: those start when the shared pass ends, in the
#    e2e suites' last minutes, since load changes none of their verdicts. Their lines are kept and
#    printed after the e2e suites; each pass's exit status is kept in a file.
unit_chain() {
  kept_run shared unit_tests --parallel --experimental-maximum-parallelization-width "$width" --skip "$TIMED"
  kept_run virtual unit_tests --parallel --experimental-maximum-parallelization-width "$virtual_width" --filter "$VIRTUAL"
}
if runs unit; then
  unit_chain &
  unit_pass=$!
  kept_run own unit_tests --no-parallel --filter "$OWN" &
  own_pass=$!
fi
if runs e2e; then
  VB_E2E_PART=shared Tests/e2e/run-all.sh .build/debug/voicebridge 2>&1 | tee "$e2e"
  [ "${PIPESTATUS[0]}" -eq 0 ] || failed+=("e2e suites run side by side")
fi
if runs unit; then
  wait "$unit_pass" "$own_pass"
  kept_pass own "unit suites that measure their own process, in a process of their own beside the rest" "unit suites in a process of their own"
  kept_pass shared "unit tests, $width at a time$(runs e2e && echo ' (they ran beside the e2e suites above)')" "unit tests run side by side, $width at a time"
  kept_pass virtual "call suites in virtual time, $virtual_width at a time, after the unit tests above" "call suites in virtual time"
fi
step_done "side by side (virtual time included)"

# 4. The timed steps, beside each other but beside nothing else: the real-time call suites
#    CALL_WIDTH at a time, the `.timed` unit suites one test at a time, and the `# e2e: alone`
#    suites one after the other — three streams that wait on real time most of their lives (run one
#    after the other they kept a quarter of the machine busy, 2 Dec). Each checks events with bounds
#    that hold beside make test-under-load's busy loops, which load the machine more than the other
#    two streams do. The e2e suites print as each ends; the unit passes' lines are kept and printed
#    after them.
if runs unit; then
  kept_run calls unit_tests --parallel --experimental-maximum-parallelization-width "$call_width" --filter "$CALLS" &
  calls_pass=$!
  kept_run alone unit_tests --no-parallel --filter "$ALONE" &
  alone_pass=$!
fi
if runs e2e; then
  VB_E2E_PART=alone Tests/e2e/run-all.sh .build/debug/voicebridge 2>&1 | tee -a "$e2e"
  [ "${PIPESTATUS[0]}" -eq 0 ] || failed+=("e2e suites run alone")
fi
if runs unit; then
  wait "$calls_pass" "$alone_pass"
  kept_pass calls "call suites in real time, $call_width at a time" "call suites run $call_width at a time"
  kept_pass alone "timed unit suites, one test at a time" "timed unit suites"
fi
step_done "timed (real-time calls, timed units, e2e alone, beside each other)"

# A skip is not a pass: a test or suite that did not run because something make deps installs is
# missing (sipp, baresip, a model) fails make test, naming it.
skipped=$(grep -a -h -E 'Test .* skipped|# SKIP' "$unit" "$e2e")
if [ -n "$skipped" ]; then
  failed+=("skipped tests (a dependency is missing: make deps)")
  echo "== skipped, so failed"; echo "$skipped"
fi

# Where the time went, then the failures again: last, where a CI log's tail shows them.
python3 scripts/slowest.py "$unit" "$e2e"
grep -a '^e2e: ' "$e2e"
echo "== wall time by step: $(printf '%s; ' "${steps[@]}")"
# The whole run's CPU: the machine's (anything running beside it counts, e.g. test-under-load's busy
# loops), and this run's own processes (those it waited for: a server that daemonised, as
# PostgreSQL's pg_ctl does, is counted only in the machine's).
times >test-artifacts/times.txt   # not in a pipe: a subshell's `times` knows none of this shell's children
own=$(awk -f scripts/children-cpu.awk test-artifacts/times.txt)
echo "== CPU: the machine's $(cpu_share $(( $(busy_ticks) - busy_started )) $(( $(milliseconds) - ms_started ))); this run's own processes ${own} s"
if [ ${#failed[@]} -gt 0 ]; then
  echo "== failed: ${failed[*]}"
  echo "== unit tests that failed"
  grep -a -E '✘|\.swift:[0-9]+(:[0-9]+)?: error:' "$unit" | grep -av 'Suite .* failed after' | tail -40
  grep -a -A40 '^== e2e checks that failed' "$e2e" | grep -av '^e2e: '
fi
# The last line names what failed, as well as the summary above: a CI log shown only in part
# keeps its last line (3 Dec: CI's excerpt held the soak's table and this line, not what failed).
join() { awk -v separator="$1" 'NR > 1 { printf "%s", separator } { printf "%s", $0 }'; }   # join SEPARATOR: stdin's lines as one
what_failed=""
if [ ${#failed[@]} -gt 0 ]; then
  tests=$(sed -n 's/^✘ Test \(.*\) failed after .*/\1/p' "$unit" | grep -v '^run with' | sort -u | head -6 | join ', ')
  checks=$(grep -a '^not ok' "$e2e" | sort -u | head -4 | cut -c1-140 | join '; ')
  what_failed=": $(printf '%s; ' "${failed[@]}" | cut -c1-300)${tests:+unit tests: $tests; }${checks:+e2e: $checks}"
fi
echo "make test: $(( $(date +%s) - started )) s wall time (exit $([ ${#failed[@]} -eq 0 ] && echo 0 || echo 1)${what_failed})"
[ ${#failed[@]} -eq 0 ]
