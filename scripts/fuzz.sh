#!/usr/bin/env bash
# make fuzz [FUZZ_SECONDS=60] [FUZZ_TARGETS="sip sdp …"] [FUZZ_BUILD=release]: builds the libFuzzer binary in its own
# scratch path (.build-fuzz, so the ordinary build is untouched), runs every target for the given
# time from its committed seed corpus (Fuzz/corpus/<target>, copied: new inputs stay out of git),
# prints executions, executions per second and crashes, and fails if anything crashed. A crash's
# input is kept in fuzz-artifacts/ — make it a regression test.
set -uo pipefail
seconds=${FUZZ_SECONDS:-60}
# FUZZ_RUNS=N stops each target after N executions instead (FUZZ_SECONDS then only caps it).
# FUZZ_JOBS=N runs N processes per target on one shared corpus (they pick up each other's finds),
# splitting FUZZ_RUNS between them; the table sums their executions and speeds.
jobs=${FUZZ_JOBS:-1}
runs_limit=${FUZZ_RUNS:+-runs=$((FUZZ_RUNS / jobs))}
targets=${FUZZ_TARGETS:-sip sip-stream sdp srtp rtp rtcp telephone-event twilio dialects digest config knowledge}
# debug (the default) builds fastest; release runs several times more executions per second
# (@testable imports need -enable-testing there).
configuration=${FUZZ_BUILD:-debug}
case $configuration in
  debug) build_flags=() ;;
  release) build_flags=(-c release -Xswiftc -enable-testing) ;;
  *) echo "FUZZ_BUILD must be debug or release, got '$configuration'" >&2; exit 2 ;;
esac
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# FUZZ_SANITIZE=address adds AddressSanitizer (its own scratch path; slower, catches memory errors
# in the C libraries and unsafe pointers that Swift's own checks do not see).
sanitizers=(--sanitize fuzzer); scratch=.build-fuzz
case ${FUZZ_SANITIZE:-} in
  "") ;;
  address) sanitizers+=(-Xswiftc -sanitize=fuzzer,address); scratch=.build-fuzz-asan   # one flag: two --sanitize arrive in random order (TESTING-2 §5)
    # libsrtp built with ASan too, so its C is checked as well: its headers through pkg-config, and
    # its archive linked whole, because the system folder that espeak-ng and soxr put first on the
    # search path would otherwise give -lsrtp2 Debian's uninstrumented shared library.
    scripts/asan-libsrtp.sh || exit 1
    export PKG_CONFIG_PATH="$root/.deps/libsrtp-asan/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
    sanitizers+=(-Xlinker --whole-archive -Xlinker "$root/.deps/libsrtp-asan/lib/libsrtp2.a" -Xlinker --no-whole-archive) ;;
  *) echo "FUZZ_SANITIZE must be empty or address, got '$FUZZ_SANITIZE'" >&2; exit 2 ;;
esac
echo "building the fuzzer ($configuration, swift build ${sanitizers[*]}, scratch path $scratch)…"
SWIFT_DETERMINISTIC_HASHING=1 swift build --scratch-path "$scratch" --product voicebridge-fuzz "${sanitizers[@]}" "${build_flags[@]}" ${SWIFT_BUILD_FLAGS:-} >"$scratch.log" 2>&1 \
  || { tail -30 "$scratch.log"; exit 1; }
binary=$scratch/$configuration/voicebridge-fuzz
# Debian's libsrtp2.so stays a dependency (CSRTP's module map links it), but the fuzzer must carry
# the instrumented functions itself, so that its calls go to them.
if [ -n "${FUZZ_SANITIZE:-}" ] && ! nm "$binary" | grep " T srtp_unprotect$" >/dev/null; then  # (not grep -q: under pipefail, nm would die of SIGPIPE)
  echo "the ASan fuzzer does not carry .deps/libsrtp-asan's srtp_unprotect: it would call the uninstrumented libsrtp2" >&2; exit 1
fi
mkdir -p fuzz-artifacts
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
# sum STAT: the libFuzzer final statistic STAT added over the current target's processes.
sum() { cat "$work/$target".*.log | grep -o "stat::$1: *[0-9]*" | grep -o '[0-9]*$' | awk '{s += $1} END {print s + 0}'; }
printf '| %-16s | %12s | %10s | %8s | %7s |\n' target executions "exec/s" corpus crashes
printf '|%s|%s|%s|%s|%s|\n' ------------------ -------------- ------------ ---------- ---------
for target in $targets; do
  mkdir -p "$work/$target"
  cp Fuzz/corpus/"$target"/* "$work/$target"/ 2>/dev/null
  pids=()
  for job in $(seq 1 "$jobs"); do
    FUZZ_TARGET=$target SWIFT_BACKTRACE=enable=no "$binary" -max_total_time="$seconds" $runs_limit -print_final_stats=1 -max_len=70000 \
      -artifact_prefix="fuzz-artifacts/$target-" "$work/$target" >"$work/$target.$job.log" 2>&1 &
    pids+=($!)
  done
  crashes=0
  for pid in "${pids[@]}"; do wait "$pid" || crashes=$((crashes + 1)); done
  runs=$(sum number_of_executed_units)
  speed=$(sum average_exec_per_sec)
  corpus=$(ls "$work/$target" | wc -l)
  if [ $crashes -ne 0 ]; then
    failed=1
    # -a: a crash's message quotes its input, which may hold any byte. The input itself in base64,
    # so that a CI log alone is enough to make the regression test.
    cat "$work/$target".*.log | grep -a -E "ERROR|Fatal error|Precondition failed|Assertion failed|==[0-9]+==" | head -5 >&2
    for input in fuzz-artifacts/"$target"-crash-*; do [ -f "$input" ] && echo "$input (base64): $(head -c 3000 "$input" | base64 -w0)" >&2; done
  fi
  printf '| %-16s | %12s | %10s | %8s | %7s |\n' "$target" "${runs:-0}" "${speed:-0}" "$corpus" "$crashes"
done
exit $failed
