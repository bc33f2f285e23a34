#!/usr/bin/env bash
# Runs every end-to-end suite against the voicebridge binary given as $1 and prints one summary line.
#
# Suites run VB_E2E_JOBS at a time (default 3 on this machine's two cores: most of a suite's time
# is spent waiting on calls in real time, a quarter of a core each); each has its own temporary
# folder, free ports and RTP port range. Two header lines steer the order: `# e2e: first` starts a
# long suite before the others (so the short ones fill the other lanes beside it), and
# `# e2e: alone` keeps a suite whose checks measure load (the soak: every frame back, memory flat)
# for the end, by itself.
# A suite's output is printed whole when it ends, so the log reads suite by suite.
# VB_E2E_PART=shared runs only the suites that may share the machine, VB_E2E_PART=alone only the
# `# e2e: alone` ones (make test runs the first part beside the unit tests; see scripts/make-test.sh).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
binary=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
export VB_BINARY=$binary
export VB_ARTIFACTS=${VB_ARTIFACTS:-$(cd "$here/../.." && pwd)/test-artifacts}
mkdir -p "$VB_ARTIFACTS"
lanes=${VB_E2E_JOBS:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
passed=0; failed=0; failures=

run_suite() { # NAME: runs it; its output, seconds, CPU and exit status land in $out
  local started=$SECONDS status
  bash "$here/$1" >"$out/$1.log" 2>&1; status=$?
  echo $((SECONDS - started)) >"$out/$1.seconds"
  # The CPU of the suite and every process it waited for (this subshell's children); a server
  # that daemonised (PostgreSQL) is not counted.
  times >"$out/$1.times"
  awk -f "$here/../../scripts/children-cpu.awk" "$out/$1.times" >"$out/$1.cpu"
  echo $status >"$out/$1.status"   # written last: the suite has ended once this file is there
}

report() { # NAME: prints an ended suite and counts its checks
  local name=$1 log status p f
  log=$(cat "$out/$name.log"); status=$(cat "$out/$name.status")
  echo "== $name"
  echo "$log"
  echo "== $name took $(cat "$out/$name.seconds") s, CPU $(cat "$out/$name.cpu") s"   # where make test's time goes (issue 37)
  p=$(grep -c '^ok ' <<<"$log"); f=$(grep -c '^not ok ' <<<"$log")
  passed=$((passed + p)); failed=$((failed + f))
  [ "$f" -gt 0 ] && failures+=$(grep '^not ok ' <<<"$log" | sed "s|^|$name: |")$'\n'
  if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then failed=$((failed + 1)); echo "not ok - $name exited $status"; failures+="$name exited $status"$'\n'; fi
}

first=(); rest=(); alone=()
part=${VB_E2E_PART:-all}
for suite in "$here"/suite-*.sh; do
  name=$(basename "$suite")
  if grep -q '^# e2e: alone' "$suite"; then alone+=("$name")
  elif grep -q '^# e2e: first' "$suite"; then first+=("$name")
  else rest+=("$name"); fi
done
[ "$part" = alone ] && first=() rest=()
[ "$part" = shared ] && alone=()

pending=("${first[@]}" "${rest[@]}"); started=()
while :; do
  while [ ${#pending[@]} -gt 0 ] && [ "$(jobs -rp | wc -l)" -lt "$lanes" ]; do
    run_suite "${pending[0]}" &
    started+=("${pending[0]}"); pending=("${pending[@]:1}")
  done
  [ "$(jobs -rp | wc -l)" -eq 0 ] && [ ${#pending[@]} -eq 0 ] && break
  wait -n
  unreported=()
  for name in "${started[@]}"; do
    if [ -f "$out/$name.status" ]; then report "$name"; else unreported+=("$name"); fi
  done
  started=("${unreported[@]}")
done
for name in "${alone[@]}"; do run_suite "$name"; report "$name"; done

# The failures again at the end, where a CI log's tail shows them.
[ "$failed" -eq 0 ] || printf '== e2e checks that failed ==\n%s' "$failures"
echo "e2e: $passed passed, $failed failed$([ "$part" = all ] || echo " (suites: $part)")"
[ "$failed" -eq 0 ]
