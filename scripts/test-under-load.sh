#!/usr/bin/env bash
# `make test-under-load`: `make test` RUNS times in a row (default 5) with the machine's cores kept
# busy by an unrelated CPU hog — one `nice -n 0` busy loop per core, started before each run and
# killed after it. No verdict may change under load (issue 57); the runs may only take longer.
# Prints each run's wall time and exit status, keeps each run's log as
# test-artifacts/under-load-N.log, and exits 1 if any run failed.
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-5}
hogs=${HOGS:-$(nproc)}
mkdir -p test-artifacts
summary=()
failed=0
for run in $(seq 1 "$runs"); do
  pids=()
  for _ in $(seq 1 "$hogs"); do nice -n 0 sh -c 'while :; do :; done' & pids+=($!); done
  started=$(date +%s)
  make test >"test-artifacts/under-load-$run.log" 2>&1
  status=$?
  kill "${pids[@]}" 2>/dev/null; wait "${pids[@]}" 2>/dev/null
  took=$(( $(date +%s) - started ))
  summary+=("run $run: $took s, exit $status")
  echo "make test-under-load: run $run of $runs with $hogs busy loops beside it: $took s, exit $status"
  if [ "$status" -ne 0 ]; then
    failed=$((failed + 1))
    grep -a -A60 '^== failed' "test-artifacts/under-load-$run.log" | head -80
  fi
done
printf '%s\n' "${summary[@]}"
echo "make test-under-load: $failed of $runs runs failed"
[ "$failed" -eq 0 ]
