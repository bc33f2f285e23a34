#!/usr/bin/env bash
# A campaign survives kill -9: the server is killed mid-campaign and restarted on the same
# database; every contact is called, none more than once per attempt (INVITEs counted at the
# simulated callee, a separate process), and the campaign completes.
set -u
source "$(dirname "$0")/lib.sh"
db=$VB_TMP/data/voicebridge.sqlite
callee_port=$(free_port)
env_common=(VOICEBRIDGE_DATABASE_PATH=$db VOICEBRIDGE_SIP_PORT=$(free_port) VOICEBRIDGE_SIP_RTP_PORT_MIN=42200 VOICEBRIDGE_SIP_RTP_PORT_MAX=42399
            VOICEBRIDGE_SIP_GATEWAY=sip:127.0.0.1:$callee_port VOICEBRIDGE_OUTBOUND_MAX_CONCURRENT_CALLS=3 VOICEBRIDGE_API_CALL_CREATIONS_PER_MINUTE=1000)
query() { python3 -c "import sqlite3,sys; db=sqlite3.connect(sys.argv[1]); print('\n'.join('|'.join(str(c) for c in r) for r in db.execute(sys.argv[2])))" "$db" "$1"; }
api() { curl -fsS -X "$1" "http://127.0.0.1:$VB_PORT/api/$2" "${@:3}"; }

"$VB_BINARY" simulate-callee --port "$callee_port" --rtp-ports 42400-42599 >"$VB_TMP/callee.log" 2>&1 &
callee_pid=$!
trap 'kill $callee_pid 2>/dev/null; vb_stop_server KILL; rm -rf "$VB_TMP"' EXIT

vb_start_server "$VB_TMP/run1.log" "${env_common[@]}" || { not_ok "server starts"; cat "$VB_TMP/run1.log"; exit 1; }
api POST templates -H 'Content-Type: application/json' -d '{"name":"attend","purpose":"the meeting for {name}","questions":["Can you attend?"]}' >/dev/null
campaign=$(api POST campaigns -H 'Content-Type: application/json' \
  -d '{"name":"kill test","template":"attend","caller_number":"0701234567","calls_per_minute":600,"max_concurrent_calls":3,"retry":{"on":[],"max_retries":0,"delay_seconds":0}}' \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
{ echo "phone,name"; for i in $(seq -w 1 12); do echo "0107000$((1000 + 10#$i)),Contact $i"; done; } >"$VB_TMP/list.csv"
accepted=$(api POST "campaigns/$campaign/contacts" -H 'Content-Type: text/csv' --data-binary @"$VB_TMP/list.csv" | python3 -c 'import json,sys; print(json.load(sys.stdin)["accepted"])')
check "the 12-contact list is accepted" test "$accepted" = 12
api POST "campaigns/$campaign/start" >/dev/null

# Kill -9 once some calls have ended and others are live.
for _ in $(seq 1 300); do
  ended=$(query "SELECT count(*) FROM calls WHERE state='completed'")
  [ "$ended" -ge 3 ] && break
  sleep 0.2
done
live=$(query "SELECT count(*) FROM calls WHERE state IN ('dialing','ringing','connected')")
vb_stop_server KILL
check "killed mid-campaign ($ended calls ended, $live live)" test "$ended" -ge 3 -a "$ended" -lt 12

vb_start_server "$VB_TMP/run2.log" "${env_common[@]}" || { not_ok "server restarts"; cat "$VB_TMP/run2.log"; exit 1; }
for _ in $(seq 1 600); do
  [ "$(query "SELECT state FROM campaigns WHERE id='$campaign'")" = "completed" ] && break
  sleep 0.2
done
check "the campaign completes after the restart" test "$(query "SELECT state FROM campaigns WHERE id='$campaign'")" = "completed"
check "every contact got a call" test "$(query "SELECT count(*) FROM campaign_contacts WHERE campaign_id='$campaign' AND outbound_id IS NOT NULL")" = 12

# INVITEs per number at the callee against attempts per number in the database.
python3 - "$VB_TMP/callee.log" "$db" >"$VB_TMP/invites.txt" <<'PY'
import re, sqlite3, sys, collections
invites = collections.Counter(re.findall(r"uri=sip:(\d+)@", open(sys.argv[1]).read()))
db = sqlite3.connect(sys.argv[2])
attempts = dict(db.execute("SELECT c.callee_number, count(a.id) FROM calls c LEFT JOIN attempts a ON a.outbound_id = c.outbound_id GROUP BY c.callee_number"))
over = {n: (invites[n], attempts.get(n, 0)) for n in set(invites) | set(attempts) if invites[n] > attempts.get(n, 0) or invites[n] > 1}
print(len(invites), sum(invites.values()), sum(attempts.values()), over)
PY
read -r numbers invites attempts over <"$VB_TMP/invites.txt"
check "no number got more INVITEs than attempts, none more than one ($invites INVITEs to $numbers numbers, $attempts attempts; over: $over)" test "$over" = "{}"
check "the callee heard at least the 12 numbers once" test "$numbers" -eq 12
interrupted=$(query "SELECT count(*) FROM calls WHERE failure_reason='interrupted_by_restart'")
check "the calls live at the kill are closed as interrupted_by_restart ($interrupted), not redialed" test "$interrupted" -le "$live"
kill $callee_pid 2>/dev/null
