#!/usr/bin/env bash
# e2e: first
# A running server under hostile SIP (issue 20 §2): sipvicious's scanner, extension enumerator and
# password cracker, a corpus of malformed messages, and an INVITE flood of 2,000/s from one
# address (127.0.0.2) while real calls come from another. The server never goes down, answers what
# can be answered with the right code, says the same to every number, drops and counts what is
# over the per-source limit, and the real calls complete. Then the same over SIP on TCP and on TLS,
# with a flood of connections from one address besides.
set -u
source "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
command -v svmap >/dev/null || { not_ok "sipvicious is installed (make deps)"; exit 1; }
db=$VB_TMP/data/voicebridge.sqlite
alive() { curl -fs "http://127.0.0.1:$VB_PORT/healthz" | grep -q '"sip_listening":true'; }
# held_connections N SECONDS: hostile_sip.py's connection flood from 127.0.0.2 in the background
# (its output in connections.txt, its pid in $holder), returned once the server has taken in all N
# — kept or refused: what the table keeps is then judged on every connection, not on those a busy
# server had yet to accept — so that the INVITE flood after it comes while they are held.
held_connections() {
  local before now; before=$(metric voicebridge_sip_connections_refused_total)
  python3 "$here/hostile_sip.py" connections "$sip_port" 127.0.0.2 "$1" "$2" >"$VB_TMP/connections.txt" &
  holder=$!
  for _ in $(seq 100); do
    now=$(metric voicebridge_sip_connections_refused_total)
    [ $((${now:-0} - ${before:-0})) -ge $(($1 - 32)) ] && return
    sleep 0.1
  done
}
# after_flood TRANSPORT OUTPUT COUNTED [CALLER]: the INVITE flood (hostile_sip.py's OUTPUT) got at
# most the burst and the rate through, at least COUNTED dropped INVITEs are in /metrics (over UDP:
# every INVITE not let through is counted there or was dropped by the kernel), the server is up, both real callers' calls (from CALLER, sipp by default) are stored completed, and the
# server stops cleanly.
# The limit is a token bucket (2/s, a burst of 5) checked as the server reads: a server that reads
# the flood for longer (a loaded machine) lets more through, never more than the burst and the rate
# over the time until the last answer came.
after_flood() {
  local sent answered last most limited
  read -r sent answered last < <(awk '{print $2, $4, $11}' <<<"$2")
  most=$(awk -v last="$last" 'BEGIN { print 5 + int(2 * last) }')
  check "$1: the flood ($2) got at most the burst and the rate through (≤ $most)" test "$sent" -eq 6000 -a "$answered" -le "$most"
  limited=$(metric voicebridge_sip_rate_limited_total)
  if [ "$1" = UDP ]; then
    # Datagrams the kernel dropped before the server read them (its socket's receive queue was
    # full: a loaded machine reads the flood slower) never reach the limiter; they are in the
    # socket's `drops` column. Every other INVITE of the flood is let through or counted.
    local dropped
    dropped=$(awk -v p="$(printf ':%04X' "$sip_port")" 'substr($2, length($2) - length(p) + 1) == p { n += $NF } END { print n + 0 }' /proc/net/udp)
    check "$1: the dropped INVITEs are counted in /metrics ($limited, and $dropped dropped by the kernel)" \
      test $((${limited:-0} + dropped)) -ge $((sent - most))
  else
    check "$1: the dropped INVITEs are counted in /metrics ($limited)" test "${limited:-0}" -ge "$3"
  fi
  check "$1: the server is up after the flood" alive
  # A call is stored completed once the server has handled its BYE, which on a loaded machine can be
  # a while after sipp has its 200 OK and exits: so up to 10 s. (A check one second after sipp found
  # fewer than two once in make test; the calls' states were not printed then, they are now.)
  local completed states who="direction='inbound' AND caller_number='${4:-sipp}'"
  completed=$(await_query 10 2 "SELECT count(*) FROM calls WHERE $who AND state='completed'")
  states=$(query "SELECT state || ' ' || count(*) FROM calls WHERE $who GROUP BY state" | tr '\n' ',')
  check "$1: both real calls are stored as completed (${states%,})" test "${completed:-0}" -ge 2
  vb_stop_server TERM
  check "$1: the server stops cleanly" test "$VB_EXIT" -eq 0
}

# Extension 110 has its own route: an enumerator must not be able to tell it from the others.
cat >"$VB_TMP/config.yaml" <<YAML
inbound:
  routes:
    "110": {greeting: "Front desk."}
YAML
VB_CONFIG=$VB_TMP/config.yaml
# 2 requests/s per address with a burst of 5; room for 60 calls, since the flood's INVITEs that
# pass the limit are answered like any caller's and hold a call until their ACK never comes (32 s):
# 11 when the server reads the flood in its 3 s, more when a loaded machine reads it for longer.
if ! vb_start_server "$VB_TMP/run.log" VOICEBRIDGE_DATABASE_PATH="$db" VOICEBRIDGE_SIP_PORT=0 \
    VOICEBRIDGE_SIP_RATE_LIMIT_REQUESTS_PER_SECOND=2 VOICEBRIDGE_SIP_RATE_LIMIT_BURST=5 VOICEBRIDGE_ENGINE_LOCAL_MAX_CALLS=60 VOICEBRIDGE_SIP_MAX_INBOUND_CALLS=60 \
    VOICEBRIDGE_SIP_RTP_PORT_MIN=55400 VOICEBRIDGE_SIP_RTP_PORT_MAX=55799; then
  not_ok "server starts"; cat "$VB_TMP/run.log"; exit 1
fi
sip_port=$VB_SIP_PORT

# 1. sipvicious.
map=$(svmap -b 127.0.0.1 -P "$(free_port)" -p "$sip_port" 127.0.0.1 2>&1)
check "svmap finds a SIP device and learns no version ($(grep -o "127.0.0.1:$sip_port | [^|]*" <<<"$map" | tr -s ' '))" grep -q "127.0.0.1:$sip_port | VoiceBridge  *|" <<<"$map"
war=$(svwar -P "$(free_port)" -e100-120 "udp://127.0.0.1:$sip_port" 2>&1)
check "svwar (REGISTER) finds no extension" grep -q "found nothing" <<<"$war"
sleep 3
war=$(svwar -P "$(free_port)" -m OPTIONS -e100-120 "udp://127.0.0.1:$sip_port" 2>&1)
check "svwar (OPTIONS) finds no extension, the routed 110 included" grep -q "found nothing" <<<"$war"
sleep 3
printf '1234\npassword\nsecret\n100\n' >"$VB_TMP/passwords.txt"
crack=$(svcrack -P "$(free_port)" -u 100 -d "$VB_TMP/passwords.txt" --maximumtime 3 "udp://127.0.0.1:$sip_port" 2>&1)
check "svcrack cracks nothing" bash -c "! grep -q '| 100 ' <<<\"\$1\"" _ "$crack"
check "the server is up after sipvicious" alive
sleep 3

# 2. Malformed messages, all at once, each from an address of its own: the right code where one can
#    be sent, silence otherwise.
python3 "$here/hostile_sip.py" corpus "$sip_port" >"$VB_TMP/corpus.txt"
expect() { # name, codes
  local got; got=$(sed -n "s/^$1|//p" "$VB_TMP/corpus.txt")
  check "$1 → ${2:-no answer}" test "$got" = "$2"
}
expect huge-content-length 400
expect negative-content-length 400
expect missing-cseq 400
expect wrong-sdp "100 488"
expect unknown-method 501
expect register 405
for silent in truncated-headers missing-call-id missing-via invalid-utf8 64kb-header 1400-via-headers nul-bytes binary-garbage empty; do
  expect "$silent" ""
done
malformed=$(metric voicebridge_sip_malformed_total)
check "malformed messages are counted in /metrics ($malformed)" test "${malformed:-0}" -ge 11
check "the server is up after the corpus" alive

# stream_corpus tcp|tls: the corpus over a stream, a connection per message. A stream that cannot be
# framed (no end to the body, a header past 64 KB) cannot be answered on: the connection is closed.
# The rest is answered as over UDP.
stream_corpus() {
  local name=${1^^}
  python3 "$here/hostile_sip.py" corpus "$sip_port" "$1" >"$VB_TMP/corpus.txt"
  expect huge-content-length "|closed"
  expect negative-content-length "|closed"
  expect 1400-via-headers "|closed"
  expect missing-cseq 400
  expect wrong-sdp "100 488"
  expect unknown-method 501
  expect register 405
  for silent in truncated-headers missing-call-id missing-via invalid-utf8 64kb-header nul-bytes binary-garbage empty; do
    expect "$silent" ""
  done
  malformed=$(metric voicebridge_sip_malformed_total)
  check "malformed messages over $name, and the three streams that could not be framed, are counted in /metrics ($malformed)" test "${malformed:-0}" -ge 9
}

# 3. An INVITE flood of 2,000/s for 3 s from 127.0.0.2, while two real callers dial in from 127.0.0.1.
timeout 60 sipp -sn uac "127.0.0.1:$sip_port" -s 0212345678 -i 127.0.0.1 -p "$(free_port)" -mp "$(free_media_port)" \
  -m 2 -r 1 -d 4000 -nostdin -timeout 40s -timeout_error >"$VB_TMP/real-callers.log" 2>&1 &
callers=$!
flood=$(python3 "$here/hostile_sip.py" flood "$sip_port" 127.0.0.2 2000 3)
wait $callers
check "real calls placed during the flood complete (sipp exit 0)" test $? -eq 0
# (over UDP, what the kernel drops before the socket reads it is counted from its socket table)
after_flood UDP "$flood" 0

# 4. The same server on SIP over TCP: the corpus on a connection each, a flood of connections from
# one address, and an INVITE flood on one connection, while real callers dial in over TCP.
db=$VB_TMP/data/voicebridge-tcp.sqlite
if ! vb_start_server "$VB_TMP/run-tcp.log" VOICEBRIDGE_DATABASE_PATH="$db" VOICEBRIDGE_SIP_PORT=0 VOICEBRIDGE_SIP_TRANSPORT=tcp \
    VOICEBRIDGE_SIP_GATEWAY="sip:127.0.0.1:$(free_port)" \
    VOICEBRIDGE_SIP_RATE_LIMIT_REQUESTS_PER_SECOND=2 VOICEBRIDGE_SIP_RATE_LIMIT_BURST=5 VOICEBRIDGE_ENGINE_LOCAL_MAX_CALLS=60 VOICEBRIDGE_SIP_MAX_INBOUND_CALLS=60 \
    VOICEBRIDGE_SIP_RTP_PORT_MIN=55400 VOICEBRIDGE_SIP_RTP_PORT_MAX=55799; then
  not_ok "the server starts on TCP"; cat "$VB_TMP/run-tcp.log"; exit 1
fi
sip_port=$VB_SIP_PORT
stream_corpus tcp
timeout 60 sipp -sn uac "127.0.0.1:$sip_port" -t t1 -s 0212345678 -i 127.0.0.1 -p "$(free_port)" -mp "$(free_media_port)" \
  -m 2 -r 1 -d 4000 -nostdin -timeout 40s -timeout_error >"$VB_TMP/real-callers-tcp.log" 2>&1 &
callers=$!
held_connections 300 5
flood=$(python3 "$here/hostile_sip.py" flood "$sip_port" 127.0.0.3 2000 3 tcp)
wait $callers
check "real calls over TCP placed during the floods complete (sipp exit 0)" test $? -eq 0
wait $holder
held=$(cat "$VB_TMP/connections.txt")
check "300 connections from one address: it keeps 32, the table's share of one address ($held)" test "$held" = "opened 300 kept 32"
refused=$(metric voicebridge_sip_connections_refused_total)
check "the refused connections are counted in /metrics ($refused)" test "${refused:-0}" -eq 268
after_flood TCP "$flood" 5900

# 5. The same on SIP over TLS: the corpus on a TLS connection each, a flood of connections that never
# begin their handshake, and an INVITE flood on one TLS connection, while two real calls come in over
# TLS (hostile_sip.py's caller: this sipp has no TLS).
(cd "$VB_TMP" && openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 2 \
  -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1)
db=$VB_TMP/data/voicebridge-tls.sqlite
if ! vb_start_server "$VB_TMP/run-tls.log" VOICEBRIDGE_DATABASE_PATH="$db" VOICEBRIDGE_SIP_PORT=0 VOICEBRIDGE_SIP_TRANSPORT=tls \
    VOICEBRIDGE_SIP_TLS_CERTIFICATE="$VB_TMP/cert.pem" VOICEBRIDGE_SIP_TLS_PRIVATE_KEY="$VB_TMP/key.pem" \
    VOICEBRIDGE_SIP_GATEWAY="sip:127.0.0.1:$(free_port)" \
    VOICEBRIDGE_SIP_RATE_LIMIT_REQUESTS_PER_SECOND=2 VOICEBRIDGE_SIP_RATE_LIMIT_BURST=5 VOICEBRIDGE_ENGINE_LOCAL_MAX_CALLS=60 VOICEBRIDGE_SIP_MAX_INBOUND_CALLS=60 \
    VOICEBRIDGE_SIP_RTP_PORT_MIN=55400 VOICEBRIDGE_SIP_RTP_PORT_MAX=55799; then
  not_ok "the server starts on TLS"; cat "$VB_TMP/run-tls.log"; exit 1
fi
sip_port=$VB_SIP_PORT
stream_corpus tls
(for call in 1 2; do python3 "$here/hostile_sip.py" call "$sip_port" tls; sleep 1; done) >"$VB_TMP/real-callers-tls.log" 2>&1 &
callers=$!
# Held 3 s: a TLS connection that has not finished its handshake in 5 s is closed by the server anyway.
held_connections 300 3
flood=$(python3 "$here/hostile_sip.py" flood "$sip_port" 127.0.0.3 2000 3 tls "http://127.0.0.1:$VB_PORT/metrics")
wait $callers
check "real calls over TLS placed during the floods complete ($(tr '\n' ' ' <"$VB_TMP/real-callers-tls.log"))" \
  test "$(grep -c '^completed, ' "$VB_TMP/real-callers-tls.log")" -eq 2
wait $holder
held=$(cat "$VB_TMP/connections.txt")
check "TLS: 300 connections from one address: it keeps 32, the table's share of one address ($held)" test "$held" = "opened 300 kept 32"
refused=$(metric voicebridge_sip_connections_refused_total)
check "TLS: the refused connections are counted in /metrics ($refused)" test "${refused:-0}" -eq 268
after_flood TLS "$flood" 5900 caller
