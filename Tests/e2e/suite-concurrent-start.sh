#!/usr/bin/env bash
# e2e: first
# Calls that start together (issue 35): five fresh servers with the local engine and its neural VAD,
# each given ten calls in the same instant - 4 inbound SIP callers (sipp), 3 inbound Twilio media
# streams, 3 outbound calls to the simulated callee - and every call must complete. A fault library
# (faults/soxr_faults.c, LD_PRELOAD) slows libsoxr's lazy initialisation of its OpenMP locks to
# widen the race that hung the server, and logs every initialisation: a lock initialised twice is
# the race happening, whether or not it hangs this time. Then a stuck C call on purpose (soxr_create
# blocked): /healthz still answers, from the event loop, and says the cooperative pool stalled; SIGTERM
# still stops the server - the watchdog dumps the threads, naming soxr_create, and exits 70.
set -u
source "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
faults=$VB_TMP/soxr_faults.so
cc -shared -fPIC -O2 -o "$faults" "$here/faults/soxr_faults.c" -ldl \
  || { not_ok "the fault library compiles"; exit 1; }

# streams PORT N SECONDS: N Twilio media streams at once, each SECONDS of μ-law silence, then stop;
# prints how many heard the agent (media back).
streams() {
  PYTHONPATH=$root/.deps/python timeout 90 python3 - "$@" <<'PY'
import asyncio, base64, json, sys
from websockets.asyncio.client import connect
port, count, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
async def stream(i):
    sid = f"MZconcurrent{i}"
    async with connect(f"ws://127.0.0.1:{port}/twilio/stream") as ws:
        await ws.send(json.dumps({"event": "connected", "protocol": "Call", "version": "1.0.0"}))
        await ws.send(json.dumps({"event": "start", "sequenceNumber": "1", "streamSid": sid, "start": {
            "accountSid": "ACconcurrent", "streamSid": sid, "callSid": f"CAconcurrent{i}", "tracks": ["inbound"],
            "customParameters": {"from": "+15550000000", "to": "+15550000001"},
            "mediaFormat": {"encoding": "audio/x-mulaw", "sampleRate": 8000, "channels": 1}}}))
        heard = 0
        async def listen():
            nonlocal heard
            async for message in ws:
                heard += json.loads(message).get("event") == "media"
        listener = asyncio.create_task(listen())
        silence = base64.b64encode(b"\xff" * 160).decode()
        for n in range(int(seconds * 50)):
            await ws.send(json.dumps({"event": "media", "sequenceNumber": str(n + 2), "streamSid": sid,
                                      "media": {"track": "inbound", "chunk": str(n + 1), "timestamp": str(n * 20), "payload": silence}}))
            await asyncio.sleep(0.02)
        await ws.send(json.dumps({"event": "stop", "sequenceNumber": str(int(seconds * 50) + 2), "streamSid": sid}))
        await asyncio.sleep(0.5)
        listener.cancel()
        return heard > 0
async def main():
    print(sum(await asyncio.gather(*(stream(i) for i in range(count)))))
asyncio.run(main())
PY
}

# locks_initialised_twice LOG: the lock addresses initialised again while already initialised.
locks_initialised_twice() {
  awk '$1 == "I" { if (live[$2]) twice[$2] = 1; live[$2] = 1 } $1 == "D" { live[$2] = 0 }
       END { n = 0; for (a in twice) n++; print n }' "$1"
}

answers='"<says Hello?>","<hangup>"'
db=$VB_TMP/data/voicebridge.sqlite
# Five rounds (~13 s each): the fault log shows the race in any round in which it
# happens, hang or not; VB_CONCURRENT_ROUNDS=20 hunts longer.
rounds=${VB_CONCURRENT_ROUNDS:-5}
for round in $(seq 1 "$rounds"); do
  rm -rf "$VB_TMP/data"
  if ! vb_start_server "$VB_TMP/round-$round.log" VOICEBRIDGE_DATABASE_PATH=$db VOICEBRIDGE_SIP_PORT=0 \
       VOICEBRIDGE_SIP_RTP_PORT_MIN=56600 VOICEBRIDGE_SIP_RTP_PORT_MAX=56799 VOICEBRIDGE_OUTBOUND_MAX_CONCURRENT_CALLS=10 VOICEBRIDGE_ENGINE_LOCAL_MAX_CALLS=10 \
       LD_PRELOAD=$faults VB_FAULT_LOG=$VB_TMP/locks-$round.log VB_FAULT_INIT_DELAY_US=20000; then
    not_ok "round $round: the server starts"; cat "$VB_TMP/round-$round.log"; continue
  fi
  sip_port=$VB_SIP_PORT
  # The ten calls, all launched before any is waited for.
  timeout 60 sipp -sn uac "127.0.0.1:$sip_port" -s 0212345678 -i 127.0.0.1 -p "$(free_port)" -mp "$(free_media_port)" \
    -m 4 -l 4 -r 100 -d 4000 -nostdin -timeout 40s -timeout_error >"$VB_TMP/sipp-$round.log" 2>&1 &
  sipp_pid=$!
  streams "$VB_PORT" 3 4 >"$VB_TMP/streams-$round.txt" 2>&1 &
  streams_pid=$!
  for i in 1 2 3; do
    curl -fsS -X POST "http://127.0.0.1:$VB_PORT/api/outbound" -H 'Content-Type: application/json' \
      -d "{\"caller_number\":\"0701234567\",\"callee_number\":\"0107000$round$i\",\"purpose\":\"the concurrency test\",\"questions\":[\"Can you attend?\"],\"metadata\":{\"simulated_answers\":[$answers]}}" \
      >/dev/null 2>>"$VB_TMP/outbound-$round.err" &
  done
  wait "$sipp_pid"; sipp_status=$?
  wait "$streams_pid"
  heard=$(tail -1 "$VB_TMP/streams-$round.txt")
  wait_until_every_call_ends
  states=$(query "SELECT direction || ':' || state, count(*) FROM calls GROUP BY 1 ORDER BY 1" | tr '\n' ' ')
  health=$(curl -fs -m 5 "http://127.0.0.1:$VB_PORT/healthz")
  vb_stop_server TERM
  [ "$sipp_status" = 0 ] || cp "$VB_TMP/sipp-$round.log" "$VB_TMP/round-$round.log" "$VB_ARTIFACTS/" 2>/dev/null
  check "round $round: 10 calls started at once all complete (sipp exit $sipp_status, streams answered ${heard:-none}/3, $states), healthz ok, SIGTERM exits $VB_EXIT" \
    test "$sipp_status" = 0 -a "$heard" = 3 -a "$states" = "inbound:completed|7 outbound:completed|3 " -a "$VB_EXIT" = 0 \
    -a -n "$(grep '"cooperative_pool":"ok"' <<<"$health")"
done

cat "$VB_TMP"/locks-*.log >"$VB_ARTIFACTS/concurrent-start-locks.log" 2>/dev/null
twice=0
for log in "$VB_TMP"/locks-*.log; do twice=$((twice + $(locks_initialised_twice "$log"))); done
inits=$(grep -c '^I' "$VB_ARTIFACTS/concurrent-start-locks.log")
check "libsoxr's shared-table locks were initialised once per server ($inits initialisations in $rounds servers, $twice initialised again while live)" \
  test "$inits" -gt 0 -a "$twice" = 0

# A C call that never returns, on purpose: every pool thread ends up waiting in soxr_create.
vb_start_server "$VB_TMP/stuck.log" VOICEBRIDGE_DATABASE_PATH=$db VOICEBRIDGE_SIP_PORT=0 VOICEBRIDGE_HTTP_SHUTDOWN_TIMEOUT_SECONDS=3 \
  VOICEBRIDGE_SIP_RTP_PORT_MIN=56600 VOICEBRIDGE_SIP_RTP_PORT_MAX=56799 LD_PRELOAD=$faults VB_FAULT_BLOCK=$VB_TMP/block \
  || { not_ok "the server for the stuck call starts"; cat "$VB_TMP/stuck.log"; exit 1; }
sip_port=$VB_SIP_PORT
touch "$VB_TMP/block"
timeout 30 sipp -sn uac "127.0.0.1:$sip_port" -s 0212345678 -i 127.0.0.1 -p "$(free_port)" -mp "$(free_media_port)" \
  -m 4 -l 4 -r 100 -d 4000 -nostdin -timeout 20s >"$VB_TMP/sipp-stuck.log" 2>&1 &
sipp_pid=$!
stalled=
for _ in $(seq 1 20); do   # the pool counts as stalled after 5 s without a heartbeat
  sleep 1
  stalled=$(curl -s -m 2 -w ' %{http_code}' "http://127.0.0.1:$VB_PORT/healthz")
  grep -q '"cooperative_pool":"stalled"' <<<"$stalled" && break
done
check "with every pool thread stuck in a C call, /healthz answers within 2 s: 503, cooperative_pool stalled (${stalled: -3})" \
  grep -q '"cooperative_pool":"stalled".* 503$' <<<"$stalled"
kill -TERM "$VB_PID"; stopping=$(date +%s)
for _ in $(seq 1 100); do kill -0 "$VB_PID" 2>/dev/null || break; sleep 0.1; done
took=$(( $(date +%s) - stopping ))
vb_stop_server KILL   # collects the exit status; kills only if the watchdog did not stop it
check "SIGTERM still stops it: the watchdog exits 70 after http.shutdown_timeout_seconds (exit $VB_EXIT after ${took} s)" test "$VB_EXIT" = 70
check "…and names the stuck call in its thread dump" grep -q "soxr_create" "$VB_TMP/stuck.log"
cp "$VB_TMP/stuck.log" "$VB_ARTIFACTS/concurrent-start-stuck.log"
kill "$sipp_pid" 2>/dev/null; wait "$sipp_pid" 2>/dev/null
rm -f "$VB_TMP/block"
