#!/usr/bin/env bash
# The server as a phone system: a real SIP caller (sipp) reaches the agent, is greeted and the
# call is stored; SIGTERM during a live call sends BYE and leaves no call half-open.
set -u
source "$(dirname "$0")/lib.sh"
db=$VB_TMP/data/voicebridge.sqlite
env_common=(VOICEBRIDGE_DATABASE_PATH=$db VOICEBRIDGE_SIP_PORT=0 VOICEBRIDGE_SIP_RTP_PORT_MIN=51200 VOICEBRIDGE_SIP_RTP_PORT_MAX=51399)


if ! vb_start_server "$VB_TMP/run.log" "${env_common[@]}"; then
  not_ok "server starts with the local engine"; cat "$VB_TMP/run.log"; exit 1
fi
sip_port=$VB_SIP_PORT
ok "server starts with the local engine (Moonshine and espeak-ng loaded)"
check "/healthz says SIP is listening" grep -q '"sip_listening":true' <<<"$(curl -fs "http://127.0.0.1:$VB_PORT/healthz")"

# 1. A caller dials in, listens 8 s, hangs up.
timeout 40 sipp -sn uac "127.0.0.1:$sip_port" -s 0212345678 -i 127.0.0.1 -p "$(free_port)" -mp "$(free_media_port)" \
  -m 1 -d 8000 -nostdin -timeout 30s -timeout_error -trace_err -error_file "$VB_TMP/sipp1-errors.log" >"$VB_TMP/sipp1.log" 2>&1
status=$?
check "the caller's call completed from sipp's side (exit $status)" test $status -eq 0
[ $status -eq 0 ] || { tail -n 20 "$VB_TMP/sipp1-errors.log" "$VB_TMP/sipp1.log" | sed 's/^/# /'; grep -v ' info ' "$VB_TMP/run.log" | tail -n 10 | sed 's/^/# server: /'; }
# The server stores the call's end once its engine has heard the caller out (seconds under load).
row=$(await_query 30 "completed|inbound|0212345678" "SELECT state, direction, callee_number FROM calls WHERE direction='inbound'")
check "the inbound call is stored as completed ($row)" grep -q "^completed|inbound|0212345678$" <<<"$row"
greeting=$(query "SELECT text FROM transcript_entries WHERE speaker='ai' ORDER BY id LIMIT 1")
check "the agent greeted the caller (transcript)" grep -q "Hello, you have reached the AI assistant" <<<"$greeting"
check "a stereo recording was written" bash -c "ls $VB_TMP/data/recordings/*.wav >/dev/null 2>&1"

# 2. SIGTERM while a call is live: BYE goes out, the row is closed, exit 0.
timeout 60 sipp -sn uac "127.0.0.1:$sip_port" -s 0298765432 -i 127.0.0.1 -p "$(free_port)" -mp "$(free_media_port)" \
  -m 1 -d 30000 -nostdin -timeout 50s -trace_msg -message_file "$VB_TMP/sipp2-messages.log" >"$VB_TMP/sipp2.log" 2>&1 &
sipp_pid=$!
for _ in $(seq 1 50); do
  [ "$(query "SELECT count(*) FROM calls WHERE state='connected'")" = "1" ] && break
  sleep 0.2
done
check "the second call is connected before shutdown" test "$(query "SELECT count(*) FROM calls WHERE state='connected'")" = "1"
vb_stop_server TERM
check "SIGTERM with a live call exits 0" test "$VB_EXIT" -eq 0
wait $sipp_pid 2>/dev/null
check "the caller received our BYE" grep -q "^BYE sip:" "$VB_TMP/sipp2-messages.log"
check "no call is left in a live state" test "$(query "SELECT count(*) FROM calls WHERE state IN ('dialing','ringing','connected')")" = "0"

# 3. The simulated callee on its own: any SIP UA can dial it.
vb_start_callee "$VB_TMP/callee.log" 51400-51499 || { not_ok "simulate-callee starts"; cat "$VB_TMP/callee.log"; exit 1; }
callee_pid=$VB_CALLEE_PID
timeout 30 sipp -sn uac "127.0.0.1:$VB_CALLEE_PORT" -s 0101234 -i 127.0.0.1 -p "$(free_port)" -mp "$(free_media_port)" \
  -m 1 -d 1000 -nostdin -timeout 20s -timeout_error >"$VB_TMP/sipp3.log" 2>&1
check "voicebridge simulate-callee rings, answers and hangs up with a SIP caller" test $? -eq 0
kill -TERM "$callee_pid" 2>/dev/null; wait "$callee_pid"
check "simulate-callee exits 0 on SIGTERM" test $? -eq 0
