#!/usr/bin/env bash
# The server binary as an operator runs it: config errors, /healthz, the dashboard in a real
# headless Chromium, graceful shutdown on SIGTERM and SIGINT, and crash reconciliation on restart.
set -u
source "$(dirname "$0")/lib.sh"
db=$VB_TMP/data/voicebridge.sqlite
web=$(cd "$(dirname "$0")/../../web" && pwd)
common=(VOICEBRIDGE_DATABASE_PATH=$db VOICEBRIDGE_HTTP_WEB_ROOT=$web VOICEBRIDGE_SIP_PORT=0
        VOICEBRIDGE_SIP_RTP_PORT_MIN=51000 VOICEBRIDGE_SIP_RTP_PORT_MAX=51199)

# 1. An invalid configuration exits non-zero and names the key.
printf 'outbound:\n  max_concurrent_calls: lots\n' >"$VB_TMP/bad.yaml"
out=$("$VB_BINARY" serve --config "$VB_TMP/bad.yaml" 2>&1); status=$?
check "invalid config exits 2" test "$status" -eq 2
check "invalid config names the key" grep -q "outbound.max_concurrent_calls" <<<"$out"
out=$(env VOICEBRIDGE_HTTP_HOST=0.0.0.0 "$VB_BINARY" serve 2>&1); status=$?
check "a public address without an API token is refused" test "$status" -eq 2
check "the refusal says why" grep -q "not a loopback address" <<<"$out"
out=$(env VOICEBRIDGE_SIP_PORT=x "$VB_BINARY" serve 2>&1); status=$?
check "a bad environment override names its variable" grep -q "VOICEBRIDGE_SIP_PORT" <<<"$out"

# 2. The server starts with the defaults and answers /healthz.
if vb_start_server "$VB_TMP/run1.log" "${common[@]}" VOICEBRIDGE_ENGINE_MODE=echo; then
  ok "server starts and serves /healthz"
else
  not_ok "server starts and serves /healthz"; cat "$VB_TMP/run1.log"; exit 1
fi
health=$(curl -fs "http://127.0.0.1:$VB_PORT/healthz")
check "/healthz says ok" grep -q '"status":"ok"' <<<"$health"
check "/healthz reports the database" grep -q '"database":"ok"' <<<"$health"
check "/healthz reports the engine mode from the environment" grep -q '"engine_mode":"echo"' <<<"$health"
check "the dashboard page is served at /" bash -c "curl -fs http://127.0.0.1:$VB_PORT/ | grep -q '<title>VoiceBridge</title>'"
check "the database file was created" test -s "$db"

# 3. The page in a real headless Chromium: its script ran and filled the stats cards from the API.
if command -v chromium >/dev/null; then
  dom=$(timeout 60 chromium --headless --no-sandbox --disable-gpu --virtual-time-budget=3000 \
        --dump-dom "http://127.0.0.1:$VB_PORT/" 2>/dev/null)
  check "Chromium renders the dashboard with stats from the API" grep -qE 'data-stat="total">[0-9]+<' <<<"$dom"
  timeout 60 chromium --headless --no-sandbox --disable-gpu --virtual-time-budget=3000 --window-size=390,844 \
        --screenshot="$VB_ARTIFACTS/dashboard-empty-phone.png" "http://127.0.0.1:$VB_PORT/" >/dev/null 2>&1
  check "a phone-width screenshot was taken" test -s "$VB_ARTIFACTS/dashboard-empty-phone.png"
else
  not_ok "Chromium is installed (make deps)"
fi

# 4. SIGTERM: graceful shutdown, exit 0, store closed.
vb_stop_server TERM
check "SIGTERM exits 0" test "$VB_EXIT" -eq 0
check "the store was closed on shutdown" grep -q "store closed" "$VB_TMP/run1.log"

# 5. A crash leaves calls live; the next start closes them as interrupted_by_restart.
python3 - "$db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
row = "INSERT INTO calls (outbound_id, caller_number, callee_number, purpose, questions, max_duration, state, created_at) VALUES (?, '0701', '0109', 'e2e', '[\"q\"]', 180, ?, '2026-11-21 10:00:00.000')"
for id, state in [("ob-e2e00001", "connected"), ("ob-e2e00002", "ringing"), ("ob-e2e00003", "queued")]:
    db.execute(row, (id, state))
db.commit()
PY
vb_start_server "$VB_TMP/run2.log" "${common[@]}" || { not_ok "server restarts"; cat "$VB_TMP/run2.log"; }
states=$(python3 -c "
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
print(' '.join(f'{i}={s}/{r}' for i, s, r in db.execute('SELECT outbound_id, state, failure_reason FROM calls ORDER BY outbound_id')))
" "$db")
check "a connected call left by a crash is failed/interrupted_by_restart" grep -q "ob-e2e00001=failed/interrupted_by_restart" <<<"$states"
check "a ringing call left by a crash is failed/interrupted_by_restart" grep -q "ob-e2e00002=failed/interrupted_by_restart" <<<"$states"
check "a queued call is not closed by the restart" bash -c "! grep -q 'ob-e2e00003=failed/interrupted_by_restart' <<<'$states'"
picked=""
for _ in $(seq 1 50); do
  picked=$(query "SELECT state FROM calls WHERE outbound_id='ob-e2e00003'")
  [ "$picked" != "queued" ] && break
  sleep 0.1
done
check "…and it is dialed after the restart (now $picked)" grep -qE "^(dialing|ringing|connected|completed)$" <<<"$picked"
check "the restart logged what it closed" grep -q "interrupted by the last shutdown" "$VB_TMP/run2.log"

# 6. SIGINT (Ctrl-C) is a graceful shutdown too.
vb_stop_server INT
check "SIGINT exits 0" test "$VB_EXIT" -eq 0
