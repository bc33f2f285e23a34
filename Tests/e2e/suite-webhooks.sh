#!/usr/bin/env bash
# Signed webhooks to a real HTTP receiver (webhook_receiver.py, which checks signatures with its own
# code). The receiver fails the first two deliveries, then is down while VoiceBridge restarts with
# deliveries still in its outbox, then accepts: every event arrives, once per webhook-id.
# Beside it, the first server sends its calls' traces to an OTLP receiver (otlp_receiver.py,
# decoding with opentelemetry-proto): each connected call is there once the server has stopped.
set -u
source "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
db=$VB_TMP/data/voicebridge.sqlite
log=$VB_TMP/received.jsonl
secrets=$VB_TMP/secrets.json
rx_port=$(free_port)
rx_pid=
otlp_pid=
trap 'kill $rx_pid $otlp_pid 2>/dev/null; vb_stop_server KILL; vb_keep_logs; rm -rf "$VB_TMP"' EXIT
secret_a=whsec_dm9pY2VicmlkZ2UtZGVtby1rZXktMDEyMzQ1Njc4OSE=
echo "{\"/a\": \"$secret_a\"}" >"$secrets"
: >"$log"

# start_receiver FAIL_FIRST
start_receiver() {
  python3 "$here/webhook_receiver.py" "$rx_port" "$secrets" "$log" "$1" >"$VB_TMP/receiver.log" 2>&1 &
  rx_pid=$!
  for _ in $(seq 1 50); do grep -q "receiver listening" "$VB_TMP/receiver.log" && return 0; sleep 0.1; done
  return 1
}
api() { curl -fsS -X "$1" "http://127.0.0.1:$VB_PORT/api/$2" "${@:3}"; }
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
# call ANSWERS_JSON NUMBER [TRACEPARENT]: an outbound call to the simulated callee, no automatic
# retry, under the request's own trace if given; prints its id.
call() {
  api POST outbound -H 'Content-Type: application/json' ${3:+-H "traceparent: $3"} -d "{\"caller_number\":\"0701234567\",\"callee_number\":\"$2\",
    \"purpose\":\"the webhook test\",\"questions\":[\"Will you come on Tuesday?\"],\"retry_on_no_answer\":false,
    \"metadata\":{\"simulated_answers\":$1}}" | json 'd["outbound_id"]'
}
# wait_for SECONDS PYTHON_CONDITION: polls a condition over `received` (the receiver's log) and `api(path)`.
wait_for() {
  python3 - "$1" "$2" "$log" "$VB_PORT" <<'PY'
import json, sys, time, urllib.request
deadline = time.time() + float(sys.argv[1])
def api(path):
    with urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[4]}/api/{path}") as r:
        return json.load(r)
while time.time() < deadline:
    received = [json.loads(l) for l in open(sys.argv[3])]
    try:
        if eval(sys.argv[2]):
            sys.exit(0)
    except Exception:
        pass
    time.sleep(0.2)
sys.exit(1)
PY
}

start_receiver 2 || { not_ok "the receiver starts"; cat "$VB_TMP/receiver.log"; exit 1; }
cat >"$VB_TMP/webhooks.yaml" <<EOF2
webhooks:
  endpoints:
    crm: {url: "http://127.0.0.1:$rx_port/a", secret: "$secret_a"}
  retry_schedule_seconds: [0.5, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3]   # about a minute
  timeout_seconds: 2
EOF2
export VB_CONFIG=$VB_TMP/webhooks.yaml
spans=$VB_TMP/spans.jsonl
PYTHONPATH="$here/../../.deps/otlp" python3 "$here/../TestSupport/otlp_receiver.py" 0 >"$spans" 2>"$VB_TMP/otlp.log" &
otlp_pid=$!
for _ in $(seq 1 100); do grep -q '^listening ' "$spans" && break; sleep 0.1; done
otlp_port=$(sed -n 's/^listening //p' "$spans")
[ -n "$otlp_port" ] || { not_ok "the OTLP receiver starts"; cat "$VB_TMP/otlp.log"; exit 1; }
vb_start_server "$VB_TMP/server.log" VOICEBRIDGE_DATABASE_PATH=$db VOICEBRIDGE_API_CALL_CREATIONS_PER_MINUTE=1000 \
    VOICEBRIDGE_TELEMETRY_OTLP_ENDPOINT=http://127.0.0.1:$otlp_port/v1/traces \
  || { not_ok "the server starts with a configured endpoint"; cat "$VB_TMP/server.log"; exit 1; }
ok "the server starts with a configured endpoint"

# An endpoint made over the API: the server generates its secret; one that refuses everything (400).
made=$(api POST webhooks -H 'Content-Type: application/json' -d "{\"url\":\"http://127.0.0.1:$rx_port/b\",\"events\":[\"call.completed\"],\"description\":\"results\"}")
b_id=$(json 'd["id"]' <<<"$made"); secret_b=$(json 'd["secret"]' <<<"$made")
check "POST /api/webhooks makes an endpoint with a generated whsec_ secret" grep -q '^whsec_' <<<"$secret_b"
made_reject=$(api POST webhooks -H 'Content-Type: application/json' -d "{\"url\":\"http://127.0.0.1:$rx_port/reject\",\"events\":[\"call.completed\"]}")
reject_id=$(json 'd["id"]' <<<"$made_reject")
python3 -c "import json,sys; json.dump({'/a': sys.argv[1], '/b': sys.argv[2], '/reject': sys.argv[3]}, open(sys.argv[4], 'w'))" \
  "$secret_a" "$secret_b" "$(json 'd["secret"]' <<<"$made_reject")" "$secrets"
check "the secret is shown once: GET /api/webhooks/{id} does not return it" test "$(api GET "webhooks/$reject_id" | json '"secret" in d')" = False
check "the list shows both kinds, without secrets" \
  test "$(api GET webhooks | json '[(e["id"], e["from_config"], "secret" in e) for e in d["items"]] == [("crm", True, False), ("'"$b_id"'", False, False), ("'"$reject_id"'", False, False)]')" = True
status=$(curl -s -o /dev/null -w '%{http_code}' -X PATCH "http://127.0.0.1:$VB_PORT/api/webhooks/crm" -H 'Content-Type: application/json' -d '{"enabled":false}')
check "a configured endpoint is changed in the file, not over the API ($status)" test "$status" = 409
status=$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$VB_PORT/api/webhooks" -H 'Content-Type: application/json' -d '{"url":"http://127.0.0.1:1/x","secret":"hunter2"}')
check "a secret not in the whsec_ form is refused ($status)" test "$status" = 422

# 1. A completed call, while the receiver fails its first two POSTs.
first=$(call '["Yes, I will be there on Tuesday."]' 0109876501)
check "the first call's events reach both endpoints after the receiver's two failures" \
  wait_for 90 "len({r['id'] for r in received if r['status'] == 200 and r['outbound_id'] == '$first'}) == 2"
check "the refusing endpoint's delivery failed after one attempt (a 400 is not retried)" \
  wait_for 20 "[(x['state'], x['attempt_count'], x['last_status']) for x in api('webhooks/$reject_id/deliveries')['items']] == [('failed', 1, 400)]"
attempts=$(api GET "outbound/$first" | json 'sorted(s for x in d["webhooks"] if x["endpoint_id"] != "'"$reject_id"'" for s in [a["status"] for a in x["attempts"]])')
check "the call's detail lists its deliveries with every attempt: two 500s, two 200s ($attempts)" test "$attempts" = "[200, 200, 500, 500]"

# 2. The receiver goes down; a failed call and a completed one are announced into the void.
kill $rx_pid; wait $rx_pid 2>/dev/null
busy=$(call '["<busy>"]' 0109876502)
second=$(call '["Yes, Tuesday is fine."]' 0109876503 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01)
check "while the receiver is down, attempts fail with network errors and stay pending" \
  wait_for 120 "sum(1 for x in api('webhooks/crm/deliveries?state=pending')['items'] if x['attempt_count'] >= 1 and x.get('last_status') is None) == 2"
curl -fsS "http://127.0.0.1:$VB_PORT/metrics" >"$VB_TMP/metrics.txt"
check "every metric deploy/grafana/voicebridge.json asks for is on /metrics (a server that made calls, traced)" python3 - "$here/../../deploy/grafana/voicebridge.json" "$VB_TMP/metrics.txt" <<'PY'
import json, re, sys
dashboard = json.load(open(sys.argv[1]))
asked = {name for panel in dashboard["panels"] for target in panel["targets"] for name in re.findall(r"voicebridge_[a-z_]+", target["expr"])}
served = {line.split("{")[0].split(" ")[0] for line in open(sys.argv[2]) if line.startswith("voicebridge_")}
missing = sorted(asked - served)
print("asked", len(asked), "missing", missing)
sys.exit(not asked or bool(missing))
PY
vb_stop_server TERM
check "the server stops cleanly with deliveries in its outbox (exit $VB_EXIT)" test "$VB_EXIT" = 0
check "each call's trace reached the OTLP collector by the stop: turns under the connected ones, the busy attempt's state; the call sent with a traceparent in that trace" python3 - "$spans" "$first" "$second" "$busy" <<'PY'
import json, sys
spans = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
calls = {s["attributes"].get("voicebridge.call.id"): s for s in spans if s["name"] == "call"}
queued = {s["attributes"].get("voicebridge.call.id"): s for s in spans if s["name"] == "call queued"}
first, second, busy = sys.argv[2:5]
turns = {s["parent_span_id"] for s in spans if s["name"] == "turn"}
ok = all(c in calls and c in queued and calls[c]["parent_span_id"] == queued[c]["span_id"] for c in (first, second, busy))
ok = ok and all(calls[c]["span_id"] in turns for c in (first, second)) and calls[busy]["span_id"] not in turns
ok = ok and calls[busy]["attributes"].get("voicebridge.call.state") == "busy"
ok = ok and calls[second]["trace_id"] == "4bf92f3577b34da6a3ce929d0e0e4736" and queued[second]["parent_span_id"] == "00f067aa0ba902b7"
ok = ok and calls[first]["trace_id"] != calls[second]["trace_id"] and queued[first]["parent_span_id"] == ""
if not ok: print(json.dumps({c: [s for s in spans if s["attributes"].get("voicebridge.call.id") == c] for c in (first, second, busy)}, indent=1)[:4000])
sys.exit(not ok)
PY
check "a traced call's log lines carry its trace and span ids" \
  grep -q "call=$second .*span_id=[0-9a-f]\{16\} .*trace_id=4bf92f3577b34da6a3ce929d0e0e4736.*call ended" "$VB_TMP/server.log"
kill $otlp_pid 2>/dev/null
restarted=$(date +%s)
vb_start_server "$VB_TMP/server2.log" VOICEBRIDGE_DATABASE_PATH=$db VOICEBRIDGE_API_CALL_CREATIONS_PER_MINUTE=1000 \
  || { not_ok "the server starts again"; cat "$VB_TMP/server2.log"; exit 1; }
start_receiver 0 || { not_ok "the receiver comes back"; exit 1; }
check "after the restart every pending delivery arrives" \
  wait_for 60 "not api('webhooks/crm/deliveries?state=pending')['items'] and not api('webhooks/$b_id/deliveries?state=pending')['items']"
# The stop cut off the attempts in flight (each waits out its 2-s timeout against the dead
# receiver); they gave their claims back, so the restart sends them at once rather than when the
# claims' lease (timeout + 30 s) runs out.
took=$(( $(date +%s) - restarted ))
check "…within ${took} s of the restart: the attempts the stop cut off gave their claims back (lease 32 s)" test "$took" -lt 20

expected=$(python3 - "$db" "$reject_id" <<'PY'
import sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute("SELECT id FROM webhook_deliveries WHERE endpoint_id != ?", (sys.argv[2],)).fetchall()
print(" ".join(sorted(r[0] for r in rows)))
PY
)
accepted=$(python3 -c "import json,sys; print(' '.join(sorted({r['id'] for r in map(json.loads, open(sys.argv[1])) if r['status'] == 200})))" "$log")
check "every event arrived: 5 deliveries (2 + 1 + 2), each accepted by webhook-id" test "$accepted" = "$expected" -a "$(wc -w <<<"$expected")" -eq 5
check "a call's webhooks carry its trace: the call placed with a traceparent, that trace; every other call, one of its own" python3 - "$log" "$first" "$second" <<'PY'
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
# The trace ids: each delivery names its own request span (traced here) or the call's (after the restart).
first = {(x["traceparent"] or "")[3:35] for x in r if x["outbound_id"] == sys.argv[2]}
second = {(x["traceparent"] or "")[3:35] for x in r if x["outbound_id"] == sys.argv[3]}
ok = second == {"4bf92f3577b34da6a3ce929d0e0e4736"}
sys.exit(not (ok and len(first) == 1 and "" not in first and first.isdisjoint(second)))
PY
check "every request's signature verifies with the receiver's own HMAC" \
  python3 -c "import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; sys.exit(not (r and all(x['verified'] for x in r)))" "$log"
check "each event is of the right type: completed, failed (busy), completed" python3 - "$log" "$first" "$busy" "$second" <<'PY'
import json, sys
r = [json.loads(l) for l in open(sys.argv[1]) if json.loads(l)["status"] == 200]
types = {(x["path"], x["outbound_id"], x["type"]) for x in r}
first, busy, second = sys.argv[2:5]
sys.exit(types != {("/a", first, "call.completed"), ("/b", first, "call.completed"), ("/a", busy, "call.failed"),
                   ("/a", second, "call.completed"), ("/b", second, "call.completed")})
PY
check "bodies are sent as application/json" python3 -c "import json,sys; sys.exit(not all(json.loads(l)['content_type'] == 'application/json' for l in open(sys.argv[1])))" "$log"

# 3. A replay sends the same webhook-id again: a duplicate on the wire the receiver can drop.
delivery=$(api GET "outbound/$first" | json '[x["id"] for x in d["webhooks"] if x["endpoint_id"] == "crm"][0]')
api POST "webhooks/crm/deliveries/$delivery/replay" >/dev/null
check "a replayed delivery arrives again under the same webhook-id" \
  wait_for 20 "sum(1 for r in received if r['id'] == '$delivery' and r['status'] == 200) == 2"
vb_stop_server TERM
