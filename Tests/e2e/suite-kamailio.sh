#!/usr/bin/env bash
# Kamailio in front of two nodes, with deploy/kamailio/kamailio.cfg as shipped (only its four
# substdef lines rewritten for loopback ports): inbound INVITEs are spread over the nodes; a node
# killed with SIGKILL is taken out by OPTIONS probing while calls sent to it in the meantime fail
# over to the survivor; it is put back once it answers again; a node's outbound call leaves
# through Kamailio to the trunk and its ACK and BYE follow the Record-Route back.
# Each node has its own SQLite file here: this suite is about Kamailio; suite-cluster.sh runs the
# nodes on one PostgreSQL database behind the same config.
# VB_KEEP=DIR keeps the run's logs, configs and databases in DIR.
set -u
source "$(dirname "$0")/lib.sh"
command -v kamailio >/dev/null || { not_ok "kamailio is installed (make deps)"; exit 1; }

here=$(cd "$(dirname "$0")/../.." && pwd)
run=$VB_TMP/kamailio   # absolute: Kamailio chdirs to /
mkdir -p "$run"
kam_port=$(free_port); trunk_port=$(free_port)
node_sip=("$(free_port)" "$(free_port)"); node_http=("" ""); node_pid=("" "")   # HTTP: the kernel's (node)
kam_pid=""
cleanup() {
  for pid in "${node_pid[@]}"; do [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; done
  # TERM, not KILL: Kamailio's main process takes its worker processes down with it.
  if [ -n "$kam_pid" ]; then
    kill -TERM "$kam_pid" 2>/dev/null
    for _ in $(seq 1 50); do kill -0 "$kam_pid" 2>/dev/null || break; sleep 0.1; done
    pkill -KILL -f "kamailio -f $run/kamailio.cfg" 2>/dev/null
  fi
  wait 2>/dev/null
  [ -n "${VB_ARTIFACTS:-}" ] && cp "$run/kamailio.log" "$VB_ARTIFACTS/kamailio.log" 2>/dev/null
  # The nodes' logs and sipp's error files, for whoever reads a failed run (the temp folder goes).
  [ -n "${VB_ARTIFACTS:-}" ] && mkdir -p "$VB_ARTIFACTS/kamailio-suite" && cp "$VB_TMP"/node*.log "$VB_TMP"/callers-* "$VB_TMP"/trunk*.log "$VB_ARTIFACTS/kamailio-suite/" 2>/dev/null
  if [ -n "${VB_KEEP:-}" ]; then rm -rf "$VB_KEEP"; cp -r "$VB_TMP" "$VB_KEEP"; fi
  rm -rf "$VB_TMP"
}
trap cleanup EXIT

printf '1 sip:127.0.0.1:%s\n1 sip:127.0.0.1:%s\n' "${node_sip[0]}" "${node_sip[1]}" >"$run/dispatcher.list"
sed -e "s|^#!substdef \"!VB_LISTEN!.*|#!substdef \"!VB_LISTEN!udp:127.0.0.1:$kam_port!g\"|" \
    -e "s|^#!substdef \"!VB_TRUNK!.*|#!substdef \"!VB_TRUNK!127.0.0.1:$trunk_port!g\"|" \
    -e "s|^#!substdef \"!VB_DISPATCHER_LIST!.*|#!substdef \"!VB_DISPATCHER_LIST!$run/dispatcher.list!g\"|" \
    "$here/deploy/kamailio/kamailio.cfg" >"$run/kamailio.cfg"
check "the shipped kamailio.cfg passes kamailio -c" kamailio -c -f "$run/kamailio.cfg"

# node I: starts node I (0 or 1), its outbound gateway Kamailio, on its SIP port — in Kamailio's
# dispatcher list before it starts, and node 1's again when it comes back — and an HTTP port from
# the kernel. Room for 10 calls each (2.5 per core by default, 5 here): after the kill one node
# takes both nodes' share; a full node would answer 503 and Kamailio would have nowhere else to go.
node() {
  local i=$1 from
  from=$(stat -c %s "$VB_TMP/node$i.log" 2>/dev/null || echo 0)
  env VOICEBRIDGE_HTTP_PORT=0 VOICEBRIDGE_SIP_PORT="${node_sip[$i]}" \
      VOICEBRIDGE_DATABASE_PATH="$VB_TMP/node$i/voicebridge.sqlite" VOICEBRIDGE_SIP_GATEWAY="sip:127.0.0.1:$kam_port" \
      VOICEBRIDGE_ENGINE_LOCAL_MAX_CALLS=10 VOICEBRIDGE_SIP_RTP_PORT_MIN=$((52000 + i * 400)) VOICEBRIDGE_SIP_RTP_PORT_MAX=$((52399 + i * 400)) \
      "$VB_BINARY" serve >>"$VB_TMP/node$i.log" 2>&1 &
  node_pid[$i]=$!
  vb_await_server "$VB_TMP/node$i.log" "${node_pid[$i]}" "$from" || return 1
  node_http[$i]=$VB_HTTP_PORT
}
# inbound_calls I: the inbound calls node I took, whatever their state: the row is written when the
# INVITE is taken, so the count holds as soon as sipp's callers are done (that they completed is
# sipp's exit status; a node's own end of a call — its result stored — may come seconds later).
inbound_calls() { query_db "$VB_TMP/node$1/voicebridge.sqlite" "SELECT count(*) FROM calls WHERE direction='inbound'"; }
kam() { kamcmd -s "unix:$run/kamailio_ctl" "$@"; }
# node_flags I: the dispatcher's flags for node I (AP: active and probed, IP: inactive).
node_flags() { kam dispatcher.list 2>/dev/null | grep -A1 "URI: sip:127.0.0.1:${node_sip[$1]}\$" | sed -n 's/.*FLAGS: //p'; }
sipp -sd uas | sed 's/^\(\s*\)\[last_CSeq:\]$/&\n\1[last_Record-Route:]/' >"$run/uas_rr.xml"
callers() { sipp_callers "$kam_port" "$1" "$2" 60; }   # N NAME: N inbound calls through Kamailio

node 0 && node 1
check "two nodes start" test $? -eq 0
kamailio -f "$run/kamailio.cfg" -Y "$run" -DD -E >"$run/kamailio.log" 2>&1 &
kam_pid=$!
for _ in $(seq 1 100); do [ "$(node_flags 0)" = AP ] && [ "$(node_flags 1)" = AP ] && break; sleep 0.2; done
check "Kamailio probes both nodes with OPTIONS and finds them up ($(node_flags 0) $(node_flags 1))" \
  test "$(node_flags 0) $(node_flags 1)" = "AP AP"

# 1. Ten inbound calls through Kamailio: every call completes, both nodes take calls.
callers 10 first
check "10 callers through Kamailio: all completed from sipp's side" test $? -eq 0
a=$(inbound_calls 0); b=$(inbound_calls 1)
check "calls were spread over the nodes ($a + $b)" test "$a" -ge 3 -a "$b" -ge 3 -a $((a + b)) -eq 10

# 2. Node 1 dies (SIGKILL). Calls placed at once still complete: an INVITE sent to the dead node
#    gets no answer and Kamailio tries the survivor; the probe marks the dead node inactive.
#    The probe does so 2 to 4 s after the kill (a 2-s interval, a 2-s timeout); an INVITE must
#    reach Kamailio before then to meet the dead node, so sipp's ports are taken before the kill
#    (two Python starts took longer than that beside a CPU hog) and sipp starts right after it.
after_kill_ports=("$(free_port)" "$(free_media_port)")
kill -KILL "${node_pid[1]}"; wait "${node_pid[1]}" 2>/dev/null
sipp_callers "$kam_port" 6 after-kill 60 "${after_kill_ports[@]}" &
callers_pid=$!
killed_at=$(date +%s.%N)
for _ in $(seq 1 150); do [ "$(node_flags 1)" = IP ] && break; sleep 0.1; done
out_after=$(python3 -c "import sys; print(round(float(sys.argv[1]) - float(sys.argv[2]), 1))" "$(date +%s.%N)" "$killed_at")
check "the dead node is marked inactive ($(node_flags 1), ${out_after} s after the kill)" test "$(node_flags 1)" = IP
wait $callers_pid
check "6 callers right after the kill: all completed" test $? -eq 0
check "the calls after the kill all landed on the survivor ($(inbound_calls 0) = $a + 6)" test "$(inbound_calls 0)" -eq $((a + 6))
check "Kamailio re-dispatched a call the dead node did not answer" grep -q "dispatch .* again, to sip:127.0.0.1:${node_sip[0]}" "$run/kamailio.log" \
  || { echo "# Kamailio's dispatch lines:"; grep -E "inbound|dispatch|ds_" "$run/kamailio.log" | tail -n 20 | sed 's/^/#   /'; }
callers 4 while-down
check "4 more callers while it is down: all completed, all on the survivor" test $? -eq 0 -a "$(inbound_calls 0)" -eq $((a + 10))

# 3. The node comes back (same database): the probe puts it back in the set and it takes calls.
node 1
for _ in $(seq 1 100); do [ "$(node_flags 1)" = AP ] && break; sleep 0.1; done
check "the restarted node is probed back in ($(node_flags 1))" test "$(node_flags 1)" = AP
callers 4 back
check "4 callers after it came back: all completed" test $? -eq 0
check "the restarted node takes calls again ($(inbound_calls 1) > $b)" test "$(inbound_calls 1)" -gt "$b"

# 4. An outbound call from node 0 with Kamailio as its gateway reaches the trunk (sipp); the
#    node's ACK and, when the call is cancelled, its BYE go back through Kamailio.
timeout 60 sipp -sf "$run/uas_rr.xml" -i 127.0.0.1 -p "$trunk_port" -mp "$(free_media_port)" -m 1 -nostdin \
  -timeout 50s -timeout_error -trace_msg -message_file "$VB_TMP/trunk-messages.log" >"$VB_TMP/trunk.log" 2>&1 &
trunk=$!
# Called once it can hear: under load sipp took over 0.5 s to bind, and the INVITE Kamailio
# relayed before was refused (the call then ended no_answer, make test-under-load).
wait_udp "$trunk_port" || not_ok "the trunk (sipp) binds its port"
api0() { curl -fsS -X "$1" "http://127.0.0.1:${node_http[0]}/api/$2" "${@:3}"; }
id=$(api0 POST outbound -H 'Content-Type: application/json' \
  -d '{"caller_number":"0701234567","callee_number":"0109876500","purpose":"the cluster test","questions":["Can you attend?"]}' \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["outbound_id"])')
state=""
for _ in $(seq 1 100); do
  state=$(api0 GET "outbound/$id" | python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])')
  [ "$state" = connected ] && break; sleep 0.2
done
check "the outbound call through Kamailio is answered by the trunk ($state)" test "$state" = connected
sleep 2
api0 POST "outbound/$id/cancel" >/dev/null
wait $trunk; trunk_exit=$?
check "the trunk saw the INVITE, our ACK and our BYE come through Kamailio (sipp exit $trunk_exit)" test $trunk_exit -eq 0 \
  || { echo "# the trunk's sipp, its messages table and errors:"; grep -E -- '^ *(-+>|<-+|\[) |rror|nexpected' "$VB_TMP/trunk.log" | sed 's/^/#   /'
       echo "# the node's log, its last lines:"; tail -n 15 "$VB_TMP/node0.log" | sed 's/^/#   /'; }
check "Kamailio relayed the node's INVITE to the trunk" grep -q "outbound .* to sip:0109876500@127.0.0.1:$trunk_port" "$run/kamailio.log"
check "the node's BYE reached the trunk through Kamailio (top Via)" bash -c "grep -A2 '^BYE ' '$VB_TMP/trunk-messages.log' | grep -q '^Via: SIP/2.0/UDP 127.0.0.1:$kam_port;'"
