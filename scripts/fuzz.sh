#!/usr/bin/env bash
# make fuzz [FUZZ_SECONDS=60] [FUZZ_TARGETS="sip sdp …"]: builds the libFuzzer binary in its own
# scratch path (.build-fuzz, so the ordinary build is untouched), runs every target for the given
# time from its committed seed corpus (Fuzz/corpus/<target>, copied: new inputs stay out of git),
# prints executions, executions per second and crashes, and fails if anything crashed. A crash's
# input is kept in fuzz-artifacts/ — make it a regression test.
set -uo pipefail
seconds=${FUZZ_SECONDS:-60}
targets=${FUZZ_TARGETS:-sip sdp rtp rtcp telephone-event twilio dialects digest}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
echo "building the fuzzer (swift build --sanitize fuzzer, scratch path .build-fuzz)…"
swift build --scratch-path .build-fuzz --product voicebridge-fuzz --sanitize fuzzer ${SWIFT_BUILD_FLAGS:-} >.build-fuzz.log 2>&1 \
  || { tail -30 .build-fuzz.log; exit 1; }
binary=.build-fuzz/debug/voicebridge-fuzz
mkdir -p fuzz-artifacts
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
printf '| %-16s | %12s | %10s | %8s | %7s |\n' target executions "exec/s" corpus crashes
printf '|%s|%s|%s|%s|%s|\n' ------------------ -------------- ------------ ---------- ---------
for target in $targets; do
  mkdir -p "$work/$target"
  cp Fuzz/corpus/"$target"/* "$work/$target"/ 2>/dev/null
  log="$work/$target.log"
  FUZZ_TARGET=$target SWIFT_BACKTRACE=enable=no "$binary" -max_total_time="$seconds" -print_final_stats=1 -max_len=70000 \
    -artifact_prefix="fuzz-artifacts/$target-" "$work/$target" >"$log" 2>&1
  status=$?
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  speed=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  corpus=$(ls "$work/$target" | wc -l)
  crashes=0
  if [ $status -ne 0 ]; then crashes=1; failed=1; grep -E "ERROR|Fatal|precondition|==[0-9]+==" "$log" | head -5 >&2; fi
  printf '| %-16s | %12s | %10s | %8s | %7s |\n' "$target" "${runs:-0}" "${speed:-0}" "$corpus" "$crashes"
done
exit $failed
