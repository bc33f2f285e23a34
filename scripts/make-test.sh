#!/usr/bin/env bash
# `make test`: every unit test and every e2e suite, side by side where no check measures time.
#
#   1. One build: the tests, the server and the bench binary (the soak suite's load).
#   2. Side by side: the unit tests that measure no time, UNIT_WIDTH at a time, and the e2e suites
#      that may share the machine, VB_E2E_JOBS at a time. Both spend most of their time waiting on
#      calls in real time (a serial unit run is 16 min of wall time for 3 min of CPU), and their RTP
#      ports are disjoint (unit tests below 49000, e2e suites 51000-57999).
#   3. Alone, one after the other: the timed unit suites (TIMED, one test at a time), then the e2e
#      suites marked `# e2e: alone` (frame lateness, calls started at the same instant).
#
# Every part runs even when one before it failed. The end repeats what failed, where the time went
# (scripts/slowest.py) and the wall time. Environment: TIMED (a --filter regex), UNIT_WIDTH,
# SWIFT_BUILD_FLAGS, VB_E2E_JOBS.
set -uo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
: "${TIMED:?TIMED: the timed unit suites, a swift test --filter regex}"
width=${UNIT_WIDTH:-2}
flags=${SWIFT_BUILD_FLAGS:-}
unit=test-artifacts/unit.log e2e=test-artifacts/e2e.log
mkdir -p test-artifacts
rm -f "$unit" "$e2e" "$unit.shared"
failed=()

# shellcheck disable=SC2086 # flags are words
if ! { swift build --build-tests $flags && swift build --product voicebridge $flags && swift build --product voicebridge-bench $flags; }; then
  echo "make test: the build failed"
  exit 1
fi

# 2. Side by side. The e2e suites print as each ends; the unit pass's lines are kept and printed after.
SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$width swift test --skip-build --parallel --skip "$TIMED" >"$unit.shared" 2>&1 &
unit_pass=$!
VB_E2E_PART=shared Tests/e2e/run-all.sh .build/debug/voicebridge 2>&1 | tee "$e2e"
[ "${PIPESTATUS[0]}" -eq 0 ] || failed+=("e2e suites run side by side")
wait "$unit_pass" || failed+=("unit tests run $width at a time")
echo "== unit tests, $width at a time (they ran beside the e2e suites above)"
cat "$unit.shared" | tee "$unit"
rm -f "$unit.shared"

# 3. Alone.
swift test --skip-build --no-parallel --filter "$TIMED" 2>&1 | tee -a "$unit"
[ "${PIPESTATUS[0]}" -eq 0 ] || failed+=("timed unit suites")
VB_E2E_PART=alone Tests/e2e/run-all.sh .build/debug/voicebridge 2>&1 | tee -a "$e2e"
[ "${PIPESTATUS[0]}" -eq 0 ] || failed+=("e2e suites run alone")

# The failures again at the end, where a CI log's tail shows them.
if [ ${#failed[@]} -gt 0 ]; then
  echo "== failed: ${failed[*]}"
  echo "== unit tests that failed"
  grep -a -E '✘|\.swift:[0-9]+(:[0-9]+)?: error:' "$unit" | grep -av 'Suite .* failed after' | tail -40
  grep -a -A40 '^== e2e checks that failed' "$e2e" | grep -av '^e2e: '
fi
grep -a '^e2e: ' "$e2e"
python3 scripts/slowest.py "$unit" "$e2e"
echo "make test: $(( $(date +%s) - started )) s wall time (exit $([ ${#failed[@]} -eq 0 ] && echo 0 || echo 1))"
[ ${#failed[@]} -eq 0 ]
