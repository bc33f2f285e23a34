# Helpers for the end-to-end suites: TAP-style results, a free port, server start and stop.
# Every server here listens on 127.0.0.1 only.
VB_TMP=$(mktemp -d)
VB_PID=
VB_CALLEE_PID=
VB_FAILED=
trap '[ -n "$VB_CALLEE_PID" ] && kill "$VB_CALLEE_PID" 2>/dev/null; vb_stop_server KILL; vb_keep_logs; rm -rf "$VB_TMP"' EXIT

# Each result says when, in seconds since the suite began, so a log shows where a suite's time went.
ok() { echo "ok - $* (at ${SECONDS} s)"; }
not_ok() { VB_FAILED=1; echo "not ok - $* (at ${SECONDS} s)"; }

# vb_keep_logs: when a check failed, the suite's logs (the server's, its peers') and database go to
# $VB_ARTIFACTS/failed-<suite>/ before its folder is removed: a failure seen once under load can
# be read afterwards, not only its one line.
vb_keep_logs() {
  [ -n "$VB_FAILED" ] && [ -n "${VB_ARTIFACTS:-}" ] || return 0
  local keep
  keep="$VB_ARTIFACTS/failed-$(basename "$0" .sh)"
  rm -rf "$keep"; mkdir -p "$keep"
  (cd "$VB_TMP" && find . -maxdepth 3 -type f \( -name '*.log' -o -name '*.sqlite*' -o -name '*.yaml' -o -name '*.txt' \) -size -50M \
    -exec cp --parents {} "$keep" \;) 2>/dev/null
  echo "# the suite's logs and database: $keep"
}
check() { # description, then a command
  local what=$1; shift
  if "$@"; then ok "$what"; else not_ok "$what"; return 1; fi
}

# query_db DB SQL: the rows of the SQLite database DB, columns joined by |, a row a line, NULL as
# None; waits up to 5 s for a write lock held by the server. The sqlite3 shell, not Python: the
# suites poll with it every 0.2 s, and a Python start cost ~0.1 s of CPU (595 of them a run, 30 Nov).
query_db() { sqlite3 -batch -bail -cmd ".timeout 5000" -nullvalue None -separator "|" "$1" "$2"; }
# query SQL: the rows of the suite's database ($db).
query() { query_db "$db" "$1"; }

# invites_against_attempts CALLEE_LOG [MAX]: the INVITEs the simulated callee logged, per number,
# against the attempts the suite's database holds per number (read through `query`, which a suite
# on PostgreSQL redefines). Prints "numbers invites attempts over", where over maps each number
# that got more INVITEs than attempts (or more than MAX) to (invites, attempts).
invites_against_attempts() {
  query "SELECT c.callee_number, count(a.id) FROM calls c LEFT JOIN attempts a ON a.outbound_id = c.outbound_id WHERE c.direction = 'outbound' GROUP BY c.callee_number" \
    >"$VB_TMP/attempts-per-number.txt"
  python3 - "$1" "$VB_TMP/attempts-per-number.txt" "${2:-0}" <<'PY'
import re, sys, collections
invites = collections.Counter(re.findall(r"uri=sip:(\d+)@", open(sys.argv[1]).read()))
attempts = {n: int(k) for n, k in (l.strip().split("|") for l in open(sys.argv[2]) if l.strip())}
most = int(sys.argv[3])
over = {n: (invites[n], attempts.get(n, 0)) for n in set(invites) | set(attempts) if invites[n] > attempts.get(n, 0) or (most and invites[n] > most)}
print(len(invites), sum(invites.values()), sum(attempts.values()), over)
PY
}

# open_calls: how many calls in the suite's database (read through `query`) have no final state yet.
open_calls() {
  query "SELECT count(*) FROM calls WHERE state NOT IN ('completed','failed','busy','no_answer','rejected','cancelled','voicemail','voicemail_left')"
}

# wait_until_every_call_ends: until open_calls is 0, at most 180 s.
wait_until_every_call_ends() {
  for _ in $(seq 1 900); do [ "$(open_calls)" = 0 ] && return 0; sleep 0.2; done
  return 1
}

# await_query SECONDS EXPECTED SQL: runs SQL every 0.2 s until it prints EXPECTED, at most SECONDS;
# prints its last result (a write that lands a moment after the event it follows).
await_query() {
  local result
  for _ in $(seq 1 $(($1 * 5))); do
    result=$(query "$3")
    [ "$result" = "$2" ] && break
    sleep 0.2
  done
  echo "$result"
}

# metric NAME: the value of one of the server's /metrics lines (the server on $VB_PORT), as a number.
metric() { curl -fsS "http://127.0.0.1:$VB_PORT/metrics" | awk -v name="$1" '$1 == name {print $2 + 0}'; }

# free_port [COUNT]: a port free for both TCP and UDP right now (SIP listens on both; a port free
# for TCP alone may be another process's RTP socket) — with COUNT (default 1) consecutive ones free
# from it: baresip listens for TLS on its SIP port + 1 (it once found that port taken: only the first
# was checked). Below the kernel's ephemeral range (32768 and up): a port the kernel handed out as
# "free" could be handed out again, to any process's outgoing connection, before the suite's server
# or peer binds it. Between 30000 and 32700 nothing else binds on purpose: the server's default RTP
# range is 20000-20999, sipp's media ports (free_media_port) 22000-29999, the suites' RTP blocks
# 51000-57999, the unit tests' above 35000.
free_port() {
  python3 -c '
import fcntl, random, socket, sys, time
count = int(sys.argv[1])
# Ports handed out in the last ten minutes, by any suite (they run side by side), are not handed out
# again: a port free now is still free when the next call asks, so two calls could get the same one
# (make test, 7 Dec: the trunk of the kamailio suite got the SIP port of node 0, which answered its own call).
with open("/tmp/voicebridge-e2e-ports", "a+") as ledger:
    fcntl.flock(ledger, fcntl.LOCK_EX)
    ledger.seek(0)
    now = time.time()
    recent = {}
    for line in ledger.read().split():
        port, _, at = line.partition("@")
        if port.isdigit() and now - float(at or 0) < 600:
            recent[int(port)] = at
    while True:
        port = random.randint(30000, 32700 - count)
        if any(p in recent for p in range(port, port + count)):
            continue
        held = []
        try:
            for p in range(port, port + count):
                t = socket.socket(); u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                held += [t, u]
                t.bind(("127.0.0.1", p)); u.bind(("127.0.0.1", p))
            break
        except OSError:
            pass
        finally:
            for sock in held:
                sock.close()
    for p in range(port, port + count):
        recent[p] = str(now)
    ledger.seek(0); ledger.truncate()
    ledger.write("".join(f"{p}@{at}\n" for p, at in recent.items()))
print(port)
' "${1:-1}"
}

# wait_tcp PORT [SECONDS]: waits until something accepts TCP connections on 127.0.0.1:PORT (a
# peer started in the background is listening), 10 s unless told; fails when it never does.
wait_tcp() {
  local _
  for _ in $(seq 1 $((${2:-10} * 10))); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}

# wait_udp PORT [SECONDS]: waits until a UDP socket is bound to PORT (a peer started in the
# background, sipp as a callee, can receive), 10 s unless told; fails when it never is. Reads the
# kernel's socket tables, since a datagram sent before the bind is refused and lost.
wait_udp() {
  local port _
  port=$(printf ':%04X' "$1")
  for _ in $(seq 1 $((${2:-10} * 10))); do
    awk -v p="$port" 'substr($2, length($2) - length(p) + 1) == p { found = 1 } END { exit !found }' /proc/net/udp /proc/net/udp6 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}

# free_media_port: an even base for sipp's -mp, below the ephemeral range, with all four ports sipp binds from it
# (audio and video RTP/RTCP) free right now — one free ephemeral port is not enough.
free_media_port() {
  python3 -c '
import random, socket
for _ in range(200):
    base = random.randrange(22000, 29998, 2)
    socks = []
    try:
        for p in range(base, base + 4):
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); socks.append(s); s.bind(("127.0.0.1", p))
        print(base); break
    except OSError:
        pass
    finally:
        for s in socks: s.close()
'
}

# sipp_callers PROXY_PORT N NAME CALL_TIMEOUT_S: N inbound calls through a SIP proxy (Kamailio),
# 3 s each, 4 a second, with sipp's uac scenario patched to follow Record-Route (ACK and BYE go
# through the proxy). A late 180 (a node's provisional overtaken in Kamailio by its 200 from another
# worker process) is legal and ignored, as a phone would: sipp's abort on unexpected messages is
# off, and a call that fails still fails by -timeout_error. sipp's output: $VB_TMP/callers-NAME.log.
# SIP_PORT and MEDIA_PORT (optional) are sipp's own ports, taken beforehand by a caller for whom the
# seconds two Python starts cost on a loaded machine matter.
sipp_callers() {
  [ -f "$VB_TMP/uac_rr.xml" ] || sipp -sd uac | sed -e 's/<recv response="200" rtd="true">/<recv response="200" rtd="true" rrs="true">/' \
    -e 's/^\(\s*\)\(ACK\|BYE\) sip:\[service\]@\[remote_ip\]:\[remote_port\] SIP\/2.0/\1\2 [next_url] SIP\/2.0\n\1[routes]/' >"$VB_TMP/uac_rr.xml"
  timeout $(($4 + 30)) sipp -sf "$VB_TMP/uac_rr.xml" "127.0.0.1:$1" -s 0212345678 -i 127.0.0.1 -p "${5:-$(free_port)}" -mp "${6:-$(free_media_port)}" \
    -default_behaviors all,-abortunexp -m "$2" -r 4 -d 3000 -nostdin -timeout "$4s" -timeout_error -trace_err \
    -error_file "$VB_TMP/callers-$3-errors.log" >"$VB_TMP/callers-$3.log" 2>&1
}

# vb_await_server LOG PID [FROM]: waits until the server writing LOG (from byte FROM on, for a log
# appended to across restarts) says where it listens and its /healthz answers, or it exits; sets
# VB_HTTP_PORT and VB_SIP_PORT to the ports it bound. A server given port 0 takes its ports from the
# kernel, so no other suite can take them between a check and the bind (a port checked free and
# bound seconds later was taken by a suite beside it once: "Address already in use", 30 Nov). The
# server loads its models first: seconds in a debug build, over ten on a loaded machine (a start
# given 10 s failed beside busier suites), so it is given a minute; how fast a server starts is not
# what these suites check.
vb_await_server() {
  local log=$1 pid=$2 from=${3:-0} began said
  began=$(date +%s%3N)
  VB_HTTP_PORT= VB_SIP_PORT=
  for _ in $(seq 1 600); do
    if [ -z "$VB_HTTP_PORT" ]; then
      said=$(tail -c +$((from + 1)) "$log" 2>/dev/null)
      VB_HTTP_PORT=$(sed -n -E 's|.*url=http://[^ ]*:([0-9]+)/ \[voicebridge\] listening.*|\1|p' <<<"$said" | head -1)
      VB_SIP_PORT=$(sed -n -E 's|.*address=[^ ]*:([0-9]+) .*\[voicebridge\] SIP listening.*|\1|p' <<<"$said" | head -1)
    fi
    if [ -n "$VB_HTTP_PORT" ] && curl -fs "http://127.0.0.1:$VB_HTTP_PORT/healthz" >/dev/null 2>&1; then
      echo "# a server answered /healthz $(( $(date +%s%3N) - began )) ms after it was started"
      return 0
    fi
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# vb_start_server LOG [env assignments…]: starts the binary in the background, its HTTP port from
# the kernel unless the assignments name one, with `--config $VB_CONFIG` when that is set, and
# waits until /healthz answers (vb_await_server); VB_PORT is its HTTP port.
vb_start_server() {
  local log=$1; shift
  env VOICEBRIDGE_HTTP_PORT=0 "$@" "$VB_BINARY" serve ${VB_CONFIG:+--config "$VB_CONFIG"} >"$log" 2>&1 &
  VB_PID=$!
  vb_await_server "$log" "$VB_PID" || return 1
  VB_PORT=$VB_HTTP_PORT
}

# vb_stop_server [SIGNAL]: stops it and waits (at most 15 s); sets VB_EXIT to its exit status.
vb_stop_server() {
  local signal=${1:-TERM}
  [ -n "$VB_PID" ] || return 0
  kill -"$signal" "$VB_PID" 2>/dev/null
  for _ in $(seq 1 150); do
    kill -0 "$VB_PID" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$VB_PID" 2>/dev/null
  wait "$VB_PID" 2>/dev/null; VB_EXIT=$?
  VB_PID=
}

# vb_start_callee LOG RTP_PORTS: starts `voicebridge simulate-callee` in the background on a SIP
# port the kernel picks and waits until it says where it listens; sets VB_CALLEE_PORT and
# VB_CALLEE_PID, and fails when it exits first. A port picked free beforehand can be taken by a
# suite running beside this one before the callee binds it (as the server's once was).
vb_start_callee() {
  "$VB_BINARY" simulate-callee --port 0 --rtp-ports "$2" >"$1" 2>&1 &
  VB_CALLEE_PID=$! VB_CALLEE_PORT=
  for _ in $(seq 1 600); do
    VB_CALLEE_PORT=$(sed -n -E 's|.*sip=[^ ]*:([0-9]+) .*simulated callee listening.*|\1|p' "$1" | head -1)
    [ -n "$VB_CALLEE_PORT" ] && return 0
    kill -0 "$VB_CALLEE_PID" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
