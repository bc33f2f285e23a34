#!/usr/bin/env bash
# A campaign survives kill -9: the server is killed mid-campaign and restarted on the same
# database; every contact is called, none more than once per attempt (INVITEs counted at the
# simulated callee, a separate process), and the campaign completes.
set -u
source "$(dirname "$0")/lib.sh"
db=$VB_TMP/data/voicebridge.sqlite
vb_start_callee "$VB_TMP/callee.log" 55200-55399 || { not_ok "the simulated callee starts"; cat "$VB_TMP/callee.log"; exit 1; }
callee_pid=$VB_CALLEE_PID callee_port=$VB_CALLEE_PORT
env_common=(VOICEBRIDGE_DATABASE_PATH=$db VOICEBRIDGE_SIP_PORT=0 VOICEBRIDGE_SIP_RTP_PORT_MIN=55000 VOICEBRIDGE_SIP_RTP_PORT_MAX=55199
            VOICEBRIDGE_SIP_GATEWAY=sip:127.0.0.1:$callee_port VOICEBRIDGE_OUTBOUND_MAX_CONCURRENT_CALLS=3 VOICEBRIDGE_API_CALL_CREATIONS_PER_MINUTE=1000
            VOICEBRIDGE_CLUSTER_NODE_ID=campaign-node)   # the restart (on other ports) is the same node
# SIP port 0: the kernel's pick. A port picked free beforehand was once taken by a suite running
# beside this one before the server bound it ("Address already in use", make test-under-load).
api() { curl -fsS -X "$1" "http://127.0.0.1:$VB_PORT/api/$2" "${@:3}"; }

trap 'kill $callee_pid 2>/dev/null; vb_stop_server KILL; vb_keep_logs; rm -rf "$VB_TMP"' EXIT

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
vb_stop_server KILL
# Counted after the kill, from the database the dead server left: a call it claimed between a count
# taken before the kill and the kill itself was live too (seen 2 Dec under load: 2 counted, 3 closed).
live=$(query "SELECT count(*) FROM calls WHERE state IN ('dialing','ringing','connected')")
check "killed mid-campaign ($ended calls ended, $live live)" test "$ended" -ge 3 -a "$ended" -lt 12

vb_start_server "$VB_TMP/run2.log" "${env_common[@]}" || { not_ok "server restarts"; cat "$VB_TMP/run2.log"; exit 1; }
for _ in $(seq 1 600); do
  [ "$(query "SELECT state FROM campaigns WHERE id='$campaign'")" = "completed" ] && break
  sleep 0.2
done
check "the campaign completes after the restart" test "$(query "SELECT state FROM campaigns WHERE id='$campaign'")" = "completed"
check "every contact got a call" test "$(query "SELECT count(*) FROM campaign_contacts WHERE campaign_id='$campaign' AND outbound_id IS NOT NULL")" = 12

# INVITEs per number at the callee against attempts per number in the database.
invites_against_attempts "$VB_TMP/callee.log" 1 >"$VB_TMP/invites.txt"
read -r numbers invites attempts over <"$VB_TMP/invites.txt"
check "no number got more INVITEs than attempts, none more than one ($invites INVITEs to $numbers numbers, $attempts attempts; over: $over)" test "$over" = "{}"
# A call killed while dialing may not have sent its INVITE, and is closed, not dialed again.
check "the callee heard every number but those of calls live at the kill ($numbers numbers, $live live)" test "$numbers" -ge $((12 - live))
interrupted=$(query "SELECT count(*) FROM calls WHERE failure_reason='interrupted_by_restart'")
check "the calls live at the kill are closed as interrupted_by_restart ($interrupted), not redialed" test "$interrupted" -le "$live"

# The same from the command line: create, upload, start, a progress bar until it ends, export.
printf 'name,phone\nAnna,010-7100-0001\nBen,010-7100-0002\nbad,12\nCleo,010-7100-0003\n' >"$VB_TMP/cli.csv"
out=$(timeout 180 "$VB_BINARY" campaign create --server "http://127.0.0.1:$VB_PORT" --template attend --csv "$VB_TMP/cli.csv" \
      --from 070-1234-5678 --max-concurrent 2 --calls-per-minute 600 --wait 2>&1)
status=$?
echo "$out" >"$VB_ARTIFACTS/cli-campaign.txt"
check "campaign create --wait exits 0 when the campaign completed (got $status)" test $status -eq 0
if [ $status -ne 0 ]; then   # why not, for whoever reads the run (seen once in CI, 24 Nov: one call failed, the third never ended)
  mkdir -p "$VB_ARTIFACTS/campaigns-suite"
  cp "$VB_TMP/run2.log" "$VB_TMP/callee.log" "$VB_ARTIFACTS/campaigns-suite/" 2>/dev/null
  query "SELECT outbound_id, state, failure_reason, attempt_count, last_outcome, campaign_id, node_id FROM calls ORDER BY created_at" \
    >"$VB_ARTIFACTS/campaigns-suite/calls.txt" 2>&1
fi
check "…it reported the upload (3 accepted, line 4 skipped)" bash -c 'grep -q "3 contacts accepted, 1 rows skipped" <<<"$0" && grep -q "line 4: not a phone number" <<<"$0"' "$out"
check "…and showed progress to 3/3" grep -qE '^\[#+\] 3/3  completed 3' <<<"$out"
cli_campaign=$(grep -oE 'cp-[0-9a-f]{8}' <<<"$out" | head -1)
"$VB_BINARY" campaign export --server "http://127.0.0.1:$VB_PORT" "$cli_campaign" -o "$VB_TMP/results.csv" 2>/dev/null
check "campaign export writes the results: a BOM, the header and one row per contact" \
  python3 -c 'import sys; d=open(sys.argv[1],"rb").read(); assert d[:3]==b"\xef\xbb\xbf"; l=d[3:].decode().splitlines(); assert l[0].startswith("line,number,name,state") and len(l)==4, l' "$VB_TMP/results.csv"
"$VB_BINARY" campaign create --server "http://127.0.0.1:$VB_PORT" --template nope --csv "$VB_TMP/cli.csv" --from 0701234 >"$VB_TMP/bad.txt" 2>&1
bad_status=$?
check "an unknown template exits 2 naming it (got $bad_status)" bash -c '[ "$0" -eq 2 ] && grep -q "template: no template .nope." "$1"' "$bad_status" "$VB_TMP/bad.txt"
kill $callee_pid 2>/dev/null
