#!/usr/bin/env bash
# Encryption at rest with a real call: a server with a storage key places a call to the simulated
# callee; the API shows its answers, summary, transcript and recording in the clear, while the
# SQLite file (with its WAL) and the recording hold none of it. A wrong key and a missing key stop
# start-up with a clear message; `voicebridge rekey` moves everything to a new key, after which the
# old key is retired and the server runs with the new key alone.
set -u
source "$(dirname "$0")/lib.sh"
db=$VB_TMP/data/voicebridge.sqlite
key_a=$(head -c 32 /dev/urandom | base64)
key_b=$(head -c 32 /dev/urandom | base64)
env_common=(VOICEBRIDGE_DATABASE_PATH=$db VOICEBRIDGE_SIP_PORT=0
            VOICEBRIDGE_SIP_RTP_PORT_MIN=51800 VOICEBRIDGE_SIP_RTP_PORT_MAX=51999 VOICEBRIDGE_OUTBOUND_RETRY_MAX_RETRIES=0)
api() { curl -fs "http://127.0.0.1:$VB_PORT$1"; }
# holds WORD FILE…: true when any file holds WORD, as bytes.
holds() { local word=$1; shift; grep -a -q -i -- "$word" "$@" 2>/dev/null; }

if ! vb_start_server "$VB_TMP/run-a.log" "${env_common[@]}" VOICEBRIDGE_STORAGE_ENCRYPTION_KEY="$key_a"; then
  not_ok "server starts with a storage key"; cat "$VB_TMP/run-a.log"; exit 1
fi
ok "server starts with a storage key"
out=$(timeout 120 "$VB_BINARY" call --server "http://127.0.0.1:$VB_PORT" --from 070-1234-5678 --to 010-5555-0101 \
      --purpose "the delivery of the turquoise armchair" --question "Is Thursday morning convenient?" \
      --answer "Yes, Thursday morning suits me, leave it with the concierge." --wait 2>&1)
check "a call with encryption on completes (exit $?)" grep -q ': completed' <<<"$out"
id=$(grep -o 'ob-[0-9a-f]*' <<<"$out" | head -1)
result=$(api "/api/outbound/$id/result")
echo "$result" > "$VB_ARTIFACTS/encryption-result.json"
check "the API shows the answer in the clear" grep -q '"status":"answered"' <<<"$result"
check "…and the transcript, the callee's line included" grep -q '"speaker":"customer"' <<<"$result"
check "…and the summary" grep -q '"summary":"[^"]' <<<"$result"
api "/api/outbound/$id/recording" > "$VB_TMP/recording.wav"
check "the recording is served as a WAV" test "$(head -c 4 "$VB_TMP/recording.wav")" = "RIFF"
check "…with the call's audio in it ($(stat -c %s "$VB_TMP/recording.wav") bytes)" test "$(stat -c %s "$VB_TMP/recording.wav")" -gt 40000
vb_stop_server TERM

files=("$db" "$db-wal" "$VB_TMP"/data/recordings/*)
# What the API showed in the clear, each whole line as it must not appear in any file.
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
lines = [t["text"] for t in r["transcript"]] + [a["answer_text"] for a in r["answers"] if a.get("answer_text")] + [r["summary"]]
print("\n".join(lines))' "$VB_ARTIFACTS/encryption-result.json" > "$VB_TMP/secrets.txt"
check "the API gave transcript lines, answers and a summary to look for ($(wc -l < "$VB_TMP/secrets.txt") lines)" test "$(wc -l < "$VB_TMP/secrets.txt")" -ge 4
check "no transcript line, answer or summary is in the database, its WAL or the recording" bash -c '! grep -a -q -F -f "$0" "$@"' "$VB_TMP/secrets.txt" "${files[@]}"
check "…nor the metadata (the simulated callee's script)" bash -c '! grep -a -q "simulated_answers" "$@"' "${files[@]}"
check "…and the recording file is no WAV: it is sealed" bash -c '! grep -a -q RIFF "$@"' "$VB_TMP"/data/recordings/*
check "the purpose, which the operator typed, is stored as it was (not in the sealed set)" holds "turquoise armchair" "$db" "$db-wal"

# A wrong key, then none: start-up refuses, saying why.
vb_start_server "$VB_TMP/run-wrong.log" "${env_common[@]}" VOICEBRIDGE_STORAGE_ENCRYPTION_KEY="$key_b"; vb_stop_server KILL
check "a wrong key stops start-up, naming the key the data needs" grep -q "sealed with storage key .* which is not configured" "$VB_TMP/run-wrong.log"
vb_start_server "$VB_TMP/run-none.log" "${env_common[@]}"; vb_stop_server KILL
check "no key stops start-up too" grep -q "but no storage.encryption_key is set" "$VB_TMP/run-none.log"
bad_key=$(env VOICEBRIDGE_DATABASE_PATH=$db VOICEBRIDGE_STORAGE_ENCRYPTION_KEY=short "$VB_BINARY" serve --check-config 2>&1)
check "a key that is not 32 bytes of base64 is a configuration error" \
  grep -q "config key 'storage.encryption_key' (environment VOICEBRIDGE_STORAGE_ENCRYPTION_KEY): must be 32 random bytes in base64" <<<"$bad_key"

nokey=$(env VOICEBRIDGE_DATABASE_PATH=$db "$VB_BINARY" rekey 2>&1); status=$?
check "rekey without a key refuses (exit $status), saying why" grep -q "no storage.encryption_key is set" <<<"$nokey"

# Rotation: B current, A previous; rekey; then B alone.
rekey=$(env VOICEBRIDGE_DATABASE_PATH=$db VOICEBRIDGE_STORAGE_ENCRYPTION_KEY="$key_b" VOICEBRIDGE_STORAGE_PREVIOUS_ENCRYPTION_KEYS="$key_a" \
        "$VB_BINARY" rekey --batch-size 3 2>&1)
status=$?
echo "$rekey" > "$VB_ARTIFACTS/encryption-rekey.txt"
check "voicebridge rekey exits 0" test $status -eq 0
check "…rewrote the values and the recording" grep -qE "rewrote [1-9][0-9]* values and 1 recordings" <<<"$rekey"
check "…and retired the old key" grep -q "retired storage keys: " <<<"$rekey"
rekey2=$(env VOICEBRIDGE_DATABASE_PATH=$db VOICEBRIDGE_STORAGE_ENCRYPTION_KEY="$key_b" "$VB_BINARY" rekey 2>&1)
check "a second rekey finds nothing left to do" grep -q "rewrote 0 values and 0 recordings" <<<"$rekey2"
if vb_start_server "$VB_TMP/run-b.log" "${env_common[@]}" VOICEBRIDGE_STORAGE_ENCRYPTION_KEY="$key_b"; then
  ok "the server starts with the new key alone"
  api "/api/outbound/$id/result" > "$VB_TMP/result-b.json"
  check "…and reads the call's result, the same as before" python3 -c 'import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); sys.exit(a!=b)' "$VB_ARTIFACTS/encryption-result.json" "$VB_TMP/result-b.json"
  api "/api/outbound/$id/recording" > "$VB_TMP/recording-b.wav"
  check "…and its recording, the same audio as before" cmp -s "$VB_TMP/recording.wav" "$VB_TMP/recording-b.wav"
  vb_stop_server TERM
else
  not_ok "the server starts with the new key alone"; tail -5 "$VB_TMP/run-b.log"
fi
vb_start_server "$VB_TMP/run-old.log" "${env_common[@]}" VOICEBRIDGE_STORAGE_ENCRYPTION_KEY="$key_a"; vb_stop_server KILL
check "the old key alone no longer opens the database" grep -q "which is not configured" "$VB_TMP/run-old.log"
