#!/usr/bin/env bash
# SIP over TLS with SRTP through the real binary and baresip (TLS transport, srtp module,
# mediaenc=srtp-mand): the server calls baresip and the agent is heard; baresip calls the server
# and is answered; a caller offering plain RTP gets 488; /metrics shows the SRTP counter.
set -u
source "$(dirname "$0")/lib.sh"
# A skip is not a pass: without baresip (make deps installs baresip-core) the suite fails, naming it.
[ -x /usr/bin/baresip ] || { not_ok "baresip is not installed (make deps installs baresip-core)"; exit 1; }
db=$VB_TMP/data/voicebridge.sqlite
fixtures=$(cd "$(dirname "$0")/../Fixtures/audio" && pwd)

# baresip's microphone: silence through the agent's opening line, then the answer, then silence
# (baresip hangs up when its file ends). 10 s of it: the suite checks that the agent closes the
# call once it has the answer, and with 4 s a machine kept busy beside the suite had not heard the
# answer when baresip hung up (the call was then the caller's hang-up, its answer kept:
# `LocalEngine.callEnded`).
sox "$fixtures/en_yes_attend.wav" "$VB_TMP/answer.wav" pad 9 10
(cd "$VB_TMP" && openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 2 \
  -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1 && cat key.pem cert.pem > tls.pem)

# baresip_folder NAME SIP_PORT RTP_PORTS MEDIAENC [answer]: a config folder for user 0109876543; TLS listens on SIP_PORT + 1.
baresip_folder() {
  local dir=$VB_TMP/$1; mkdir -p "$dir"
  cat > "$dir/config" <<CONF
sip_listen 127.0.0.1:$2
sip_certificate $VB_TMP/tls.pem
sip_cafile $VB_TMP/cert.pem
audio_player aubridge,nil
audio_source aufile,$VB_TMP/answer.wav
audio_alert aubridge,nil
ausrc_srate 8000
auplay_srate 8000
rtp_ports $3
module_path /usr/lib/baresip/modules
module g711.so
module aufile.so
module aubridge.so
module sndfile.so
module srtp.so
module_app account.so
module_app menu.so
snd_path $dir
CONF
  echo "<sip:0109876543@127.0.0.1;transport=tls>;regint=0;audio_codecs=PCMU,PCMA${4:+;mediaenc=$4}${5:+;answermode=auto}" > "$dir/accounts"
}

callee_sip=$(free_port 2)
baresip_folder callee "$callee_sip" 57200-57249 srtp-mand answer
timeout 120 baresip -f "$VB_TMP/callee" -t 110 > "$VB_TMP/callee.log" 2>&1 &
callee_pid=$!
wait_tcp $((callee_sip + 1)) 20 || { not_ok "baresip (the callee) listens for TLS on $((callee_sip + 1))"; tail -n 20 "$VB_TMP/callee.log" | sed 's/^/# /'; }

if ! vb_start_server "$VB_TMP/run.log" VOICEBRIDGE_DATABASE_PATH="$db" VOICEBRIDGE_SIP_PORT=0 \
     VOICEBRIDGE_SIP_RTP_PORT_MIN=57000 VOICEBRIDGE_SIP_RTP_PORT_MAX=57199 VOICEBRIDGE_OUTBOUND_RETRY_MAX_RETRIES=0 \
     VOICEBRIDGE_OUTBOUND_MAX_CALL_DURATION=30 VOICEBRIDGE_SIP_TRANSPORT=tls VOICEBRIDGE_SIP_SRTP=required \
     VOICEBRIDGE_SIP_TLS_CERTIFICATE="$VB_TMP/cert.pem" VOICEBRIDGE_SIP_TLS_PRIVATE_KEY="$VB_TMP/key.pem" \
     VOICEBRIDGE_SIP_TLS_CA_FILE="$VB_TMP/cert.pem" VOICEBRIDGE_SIP_GATEWAY="sip:127.0.0.1:$((callee_sip + 1))"; then
  not_ok "server starts with SIP over TLS and SRTP required"; cat "$VB_TMP/run.log"; kill "$callee_pid"; exit 1
fi
sip_port=$VB_SIP_PORT
ok "server starts with SIP over TLS and SRTP required"

# 1. We call baresip: TLS to its TLS port, SRTP both ways; baresip records what it decrypts.
out=$(timeout 90 "$VB_BINARY" call --server "http://127.0.0.1:$VB_PORT" --from 070-1234-5678 --to 0109876543 \
      --purpose "the delivery of the turquoise armchair" --question "Is Thursday morning convenient?" --wait 2>&1); call_status=$?
echo "$out" > "$VB_ARTIFACTS/tls-srtp-outbound.txt"
check "our call to baresip over TLS was answered and ended (the CLI exited $call_status)" grep -q -E ': (completed|no_answer_from_callee)' <<<"$out" ||
  { sed 's/^/# call: /' <<<"$out" | tail -n 10; tail -n 15 "$VB_TMP/callee.log" | sed 's/^/# baresip: /'; grep -v ' info ' "$VB_TMP/run.log" | tail -n 10 | sed 's/^/# server: /'; }
id=$(grep -o 'ob-[0-9a-f]*' <<<"$out" | head -1)
check "baresip negotiated SRTP for it" grep -q "SRTP is Enabled" "$VB_TMP/callee.log"
ai=$(query "SELECT count(*) FROM transcript_entries WHERE outbound_id = '$id' AND speaker = 'ai'")
check "the agent spoke on the call ($ai lines)" test "${ai:-0}" -gt 0
said=$(query "SELECT text FROM transcript_entries WHERE outbound_id = '$id' AND speaker = 'customer'" | head -3)
check "the agent decrypted and transcribed baresip's answer ('$said')" grep -q -i "yes" <<<"$said"
heard=$(ls "$VB_TMP"/callee/dump-*-dec.wav 2>/dev/null | head -1)
rms=$(python3 -c '
import sys, wave, struct, math
w = wave.open(sys.argv[1]); data = w.readframes(w.getnframes())
s = struct.unpack("<%dh" % (len(data) // 2), data)
print(int(math.sqrt(sum(x * x for x in s) / max(1, len(s)))))' "$heard" 2>/dev/null)
check "baresip decrypted and heard the agent (RMS ${rms:-none})" test "${rms:-0}" -gt 300

# 2. baresip calls us over TLS with SRTP required: answered by the agent, stored.
caller_sip=$(free_port 2)
baresip_folder caller "$caller_sip" 57250-57299 srtp-mand
timeout 30 baresip -f "$VB_TMP/caller" -t 12 -e "/dial sip:0212345678@127.0.0.1:$sip_port" > "$VB_TMP/caller.log" 2>&1
check "baresip's call to us over TLS was established with SRTP" \
  bash -c "grep -q 'Call established' '$VB_TMP/caller.log' && grep -q 'SRTP is Enabled' '$VB_TMP/caller.log'"
# baresip hung up as it quit; the call is stored completed once its session has ended (up to 10 s).
hung_up=$SECONDS
row=$(await_query 10 completed "SELECT state FROM calls WHERE direction = 'inbound' AND callee_number = '0212345678'")
check "the inbound TLS call is stored as completed ($row, after $((SECONDS - hung_up)) s)" test "$row" = "completed"
greeting=$(query "SELECT count(*) FROM transcript_entries e JOIN calls c ON c.outbound_id = e.outbound_id WHERE c.direction = 'inbound' AND e.speaker = 'ai'")
check "the agent greeted the TLS caller" test "${greeting:-0}" -gt 0

# 3. A caller offering plain RTP is refused: SRTP is required.
plain_sip=$(free_port 2)
baresip_folder plain "$plain_sip" 57250-57299 ""
timeout 20 baresip -f "$VB_TMP/plain" -t 5 -e "/dial sip:0213333333@127.0.0.1:$sip_port" > "$VB_TMP/plain.log" 2>&1
check "a plain-RTP offer over TLS gets 488" grep -q "488" "$VB_TMP/plain.log"
check "…and no call was stored for it" test "$(query "SELECT count(*) FROM calls WHERE callee_number = '0213333333'")" = "0"

check "/metrics has the SRTP rejection counter" grep -q "voicebridge_srtp_rejected_total" <<<"$(curl -fs "http://127.0.0.1:$VB_PORT/metrics")"
vb_stop_server TERM
check "the server stops cleanly (exit $VB_EXIT)" test "$VB_EXIT" -eq 0
kill "$callee_pid" 2>/dev/null; wait "$callee_pid" 2>/dev/null
cp "$VB_TMP"/*.log "$VB_ARTIFACTS/" 2>/dev/null
true
