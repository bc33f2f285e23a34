#!/usr/bin/env bash
# make demo: the server with its embedded defaults (local engine, built-in simulated callee) and
# seed 000's example call, in English, placed and followed with `voicebridge call --wait`.
set -euo pipefail
binary=${1:-.build/release/voicebridge}
port=${VOICEBRIDGE_HTTP_PORT:-8080}
log=$(mktemp)
"$binary" serve >"$log" 2>&1 &
server=$!
trap 'kill -TERM $server 2>/dev/null; wait $server 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 1 100); do
  curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  kill -0 $server 2>/dev/null || { cat "$log"; exit 1; }
  sleep 0.1
done
echo "VoiceBridge is up: http://127.0.0.1:$port/ (the dashboard shows this call live)"
"$binary" call --server "http://127.0.0.1:$port" \
  --from 070-1234-5678 --to 010-9876-5432 --display-name "ABC Company" \
  --purpose "tomorrow's 2 pm meeting" \
  --question "Can you attend?" --question "Does the place need to change?" \
  --answer "Yes, I can attend the meeting." --answer "No, the original location is fine." \
  --wait
