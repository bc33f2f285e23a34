#!/usr/bin/env bash
# e2e: alone
# The soak test's one-minute version (`make soak` runs ten minutes at 200 + 200 on a release
# build): the debug server under 10 SIP calls from sipp with RTP and 10 Twilio media streams at
# once, every call ending after 15 s and replaced, sampled every 10 s. voicebridge-bench judges:
# memory, descriptors and threads flat after warm-up, no frame dropped, every stream's audio back,
# every call stored complete. How late the media ticks ran and how deep the queues rose it reports
# (`--lateness reported`): a debug server beside make test's other work on two cores is late by
# what the machine gives it; the release soak judges both (docs/testing.md, "Soak").
set -u
source "$(dirname "$0")/lib.sh"
bench=$(dirname "$VB_BINARY")/voicebridge-bench
if [ ! -x "$bench" ]; then not_ok "the soak needs $bench (make e2e-test builds it)"; exit 1; fi
# The bench's output goes to a file, and what it started (the server, sipp) is found afterwards by
# the TMPDIR it inherited and killed: a bench that died (a trap under load, once) left both running
# and holding a command substitution's pipe open, and the suite waited forever. (They are not in
# the bench's process group: Foundation's Process gives each child a group of its own.)
mkdir -p "$VB_TMP/bench"
TMPDIR=$VB_TMP/bench timeout 300 "$bench" soak --seconds 60 --sip-calls 10 --streams 10 --call-seconds 15 --interval 10 --lateness reported \
  --output "$VB_ARTIFACTS/soak" >"$VB_TMP/soak.out" 2>&1
status=$?
for proc in /proc/[0-9]*; do
  grep -qsz "^TMPDIR=$VB_TMP/bench\$" "$proc/environ" && kill -KILL "${proc#/proc/}" 2>/dev/null
done
out=$(cat "$VB_TMP/soak.out")
echo "$out" > "$VB_ARTIFACTS/soak-60s.txt"
echo "$out" | sed -n '/^| s /,$p' | head -40
# The bench's reasons go into the check's line, so that make test's last line names them (CI shows
# little more than that line).
reasons=$(sed -n 's/^  - //p' <<<"$out" | awk '{ printf "%s%s", (NR > 1 ? "; " : ""), $0 }')
check "60 s of churning SIP calls and Twilio streams: the soak's verdict is passed (exit $status${reasons:+: $reasons})" grep -q "^soak: passed" <<<"$out"
check "…sipp completed calls, each stored" grep -qE "SIP calls completed \(sipp\) / stored +\| ([1-9][0-9]*) / \1 \(failed 0\)" <<<"$out"
check "…streams ran, each stored" grep -qE "Twilio streams run / stored +\| ([1-9][0-9]*) / \1 " <<<"$out"
