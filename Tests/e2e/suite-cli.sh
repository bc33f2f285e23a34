#!/usr/bin/env bash
# e2e: first
# `voicebridge call` against a running server and the built-in simulated callee: a call that
# completes (exit 0, answers and transcript printed), a Korean one, one that is not answered (exit 1), a bad
# request (exit 2 with the field named), and a token-protected server; `voicebridge test`: a suite
# with a passing and a failing persona (exit 1, the table, JUnit XML), and a bad suite (exit 2); --version;
# `voicebridge doctor` with its HTTP port taken (exit 1) and free (exit 0).
set -u
source "$(dirname "$0")/lib.sh"
env_common=(VOICEBRIDGE_DATABASE_PATH=$VB_TMP/data/voicebridge.sqlite VOICEBRIDGE_SIP_PORT=0
            VOICEBRIDGE_SIP_RTP_PORT_MIN=51600 VOICEBRIDGE_SIP_RTP_PORT_MAX=51799 VOICEBRIDGE_OUTBOUND_RETRY_MAX_RETRIES=0 VOICEBRIDGE_OUTBOUND_RING_TIMEOUT=4)
if ! vb_start_server "$VB_TMP/run.log" "${env_common[@]}" VOICEBRIDGE_API_TOKEN=e2e-secret-0123456789; then
  not_ok "server starts"; cat "$VB_TMP/run.log"; exit 1
fi
server=http://127.0.0.1:$VB_PORT

# The binary and the running server report one version (CHANGELOG.md's next release).
version=$("$VB_BINARY" --version)
check "voicebridge --version prints a version" grep -qE '^[0-9]+\.[0-9]+\.[0-9]+' <<<"$version"
check "…the one /healthz reports" bash -c "curl -fs '$server/healthz' | grep -q '\"version\":\"$version\"'"
check "…and CHANGELOG.md names its release or Unreleased" grep -qE "^## \[(Unreleased|${version%%-*})\]" "$(dirname "$0")/../../CHANGELOG.md"

# voicebridge doctor: the running server holds its HTTP port, so a doctor for that port fails on it
# (exit 1, the port and the fix named); on free ports it is ready to serve (exit 0).
doctor_env=(VOICEBRIDGE_DATABASE_PATH=$VB_TMP/doctor/voicebridge.sqlite VOICEBRIDGE_SIP_PORT=0)
out=$(env "${doctor_env[@]}" VOICEBRIDGE_HTTP_PORT=$VB_PORT timeout 120 "$VB_BINARY" doctor 2>&1); status=$?
echo "$out" > "$VB_ARTIFACTS/cli-doctor-port-taken.txt"
check "voicebridge doctor exits 1 when the HTTP port is taken (got $status)" test $status -eq 1
check "…naming the port and its fix" grep -qE "^FAIL  http port $VB_PORT: .*in use — fix: .*http.port" <<<"$out"
check "…and the engine's models loaded as serve loads them" grep -q "^ok    engine local: its models, voices and keys load" <<<"$out"
out=$(env "${doctor_env[@]}" VOICEBRIDGE_HTTP_PORT=$(free_port) timeout 120 "$VB_BINARY" doctor 2>&1); status=$?
check "voicebridge doctor exits 0 on free ports, ready to serve (got $status)" bash -c "test $status -eq 0 && grep -q '^doctor: ready to serve' <<<\"\$0\"" "$out"

out=$(timeout 120 "$VB_BINARY" call --server "$server" --token e2e-secret-0123456789 --from 070-1234-5678 --to 010-9876-5432 \
      --purpose "tomorrow's 2 pm meeting" --question "Can you attend?" --answer "Yes, I can attend the meeting." --wait 2>&1)
status=$?
echo "$out" > "$VB_ARTIFACTS/cli-call-wait.txt"
check "call --wait exits 0 when the call completed" test $status -eq 0
check "…it showed the live states" bash -c "grep -q ': ringing' <<<\"\$0\" && grep -q ': connected' <<<\"\$0\" && grep -q ': completed' <<<\"\$0\"" "$out"
check "…and the transcript lines as they happened" grep -q "AI .*Hello, this is the AI assistant" <<<"$out"
check "…then the answers" grep -qE "\[answered\] Can you attend\? → yes" <<<"$out"
check "…and the full transcript with times" grep -qE "\[00:00\] ai: Hello" <<<"$out"

# A Korean call on the same server (language ko: Whisper base hears, espeak-ng's Korean speaks).
out=$(timeout 120 "$VB_BINARY" call --server "$server" --token e2e-secret-0123456789 --from 070-1234-5678 --to 010-9876-5433 \
      --language ko --purpose "내일 회의" --question "내일 회의에 참석하실 수 있나요?" --answer "예." --wait 2>&1)
status=$?
echo "$out" > "$VB_ARTIFACTS/cli-call-korean.txt"
check "call --language ko --wait exits 0 when the Korean call completed" test $status -eq 0
check "…the agent greeted in Korean" grep -q "AI .*안녕하세요" <<<"$out"
check "…and the Korean answer is stored" grep -qE "\[answered\] 내일 회의에 참석하실 수 있나요\? → yes" <<<"$out"

# Test runs: a suite with a persona that passes and one that expects the wrong answer, two at a time.
curl -sf -X POST -H "Authorization: Bearer e2e-secret-0123456789" -H 'Content-Type: application/json' \
  -d '{"name":"meeting","purpose":"tomorrow'"'"'s 2 pm meeting","questions":["Can you attend?"]}' \
  "$server/api/templates" >/dev/null || not_ok "the template for the test run is created"
cat > "$VB_TMP/suite.yaml" <<'YAML'
name: meeting smoke
personas:
  - name: cooperative
    says: ["Yes, I can attend the meeting."]
    expect:
      answers:
        - {status: answered, answer: "yes"}
  - name: expects the wrong answer
    says: ["Yes, I can attend the meeting."]
    expect:
      answers:
        - {status: answered, answer: "no"}
YAML
out=$(timeout 240 "$VB_BINARY" test --server "$server" --token e2e-secret-0123456789 --template meeting --suite "$VB_TMP/suite.yaml" \
      --parallel 2 --junit "$VB_ARTIFACTS/test-run.xml" 2>&1)
status=$?
echo "$out" > "$VB_ARTIFACTS/cli-test-run.txt"
check "a test run with a failing persona exits 1 (got $status)" test $status -eq 1
check "…each persona was printed as it ended" bash -c "grep -q '✓ cooperative (completed' <<<\"\$0\" && grep -q '✗ expects the wrong answer (completed' <<<\"\$0\"" "$out"
check "…the table: the passing persona PASS" grep -qE "^  cooperative +PASS" <<<"$out"
check "…the other FAIL, expected vs got" grep -q "✗ Can you attend? answer: expected no, got yes" <<<"$out"
check "…with a link to its call" grep -qE "$server/#/calls/ob-[0-9a-f]{8}" <<<"$out"
check "…and JUnit XML with 2 tests, 1 failure" grep -q 'tests="2" failures="1"' "$VB_ARTIFACTS/test-run.xml"
check "…it ran in virtual time, and says how much faster than real time" \
  grep -qE "^Ran in virtual time: [0-9.]+ s on the calls' clock in [0-9.]+ s, [0-9.]+× real time" <<<"$out"
# The same suite in real time: the same verdicts, persona by persona, and the same failure.
verdicts() { grep -E "^  (cooperative|expects the wrong answer) +(PASS|FAIL) |✗ Can you attend" <<<"$1" | sed -E 's/ +[0-9.]+ +http.*$//; s/ \(heard .*$//'; }
virtual_out=$out
out=$(timeout 240 "$VB_BINARY" test --server "$server" --token e2e-secret-0123456789 --template meeting --suite "$VB_TMP/suite.yaml" \
      --parallel 2 --real-time 2>&1)
status=$?
echo "$out" > "$VB_ARTIFACTS/cli-test-run-real-time.txt"
check "--real-time runs the suite in real time and says so (exit $status)" \
  bash -c "[ $status -eq 1 ] && grep -qE '^Ran in real time: [0-9.]+ s' <<<\"\$0\"" "$out"
check "…with the verdicts of the run in virtual time" test "$(verdicts "$out")" = "$(verdicts "$virtual_out")"
# The suite on a worse line: babble behind the callee at 10 dB, the agent's echo at -10 dB. The run
# names its line; what the personas score on it is make bench's line suite, not checked here.
head -7 "$VB_TMP/suite.yaml" > "$VB_TMP/line-suite.yaml"
out=$(timeout 240 "$VB_BINARY" test --server "$server" --token e2e-secret-0123456789 --template meeting --suite "$VB_TMP/line-suite.yaml" \
      --line-noise babble --line-snr 10 --line-echo -10 2>&1)
status=$?
echo "$out" > "$VB_ARTIFACTS/cli-test-run-line.txt"
check "a run on a simulated line ends with a verdict (exit $status) and names the line" \
  bash -c "[ $status -le 1 ] && grep -q 'over a line with babble at 10 dB, echo at -10 dB after 150 ms: ' <<<\"\$0\"" "$out"
out=$(timeout 30 "$VB_BINARY" test --server "$server" --token e2e-secret-0123456789 --template meeting --suite "$VB_TMP/line-suite.yaml" \
      --line-noise jackhammer 2>&1)
status=$?
check "an unknown line noise exits 2 (got $status), naming the field and the noises there are" \
  bash -c "[ $status -eq 2 ] && grep -q 'line.noise' <<<\"\$0\" && grep -q 'babble' <<<\"\$0\"" "$out"
# A flow's outcome and fields as expectations: one persona meets them, one expects the other end.
curl -sf -X POST -H "Authorization: Bearer e2e-secret-0123456789" -H 'Content-Type: application/json' \
  -d '{"name":"rsvp","purpose":"the open day on Friday","flow":{"start":"attend","steps":[
        {"id":"attend","ask":"Will you come to the open day on Friday?","field":"attending","kind":"yes_no","next":"route"},
        {"id":"route","branch":[{"field":"attending","is":"yes","next":"booked"}],"default":"declined"},
        {"id":"booked","end":"Thank you, see you on Friday.","outcome":"registered"},
        {"id":"declined","end":"Thank you for letting us know.","outcome":"declined"}]}}' \
  "$server/api/templates" >/dev/null || not_ok "the flow template for the test run is created"
cat > "$VB_TMP/flow-suite.yaml" <<'YAML'
name: rsvp
personas:
  - name: declines
    says: ["No, I cannot come."]
    expect: {outcome: declined, fields: {attending: "no"}}
  - name: expected to come
    says: ["No, I cannot come."]
    expect: {outcome: registered, fields: {attending: "yes"}}
YAML
out=$(timeout 180 "$VB_BINARY" test --server "$server" --token e2e-secret-0123456789 --template rsvp --suite "$VB_TMP/flow-suite.yaml" --parallel 2 2>&1)
status=$?
echo "$out" > "$VB_ARTIFACTS/cli-test-run-flow.txt"
check "a flow's outcome and fields are checked: one persona passes, one fails (exit $status)" test $status -eq 1
check "…the passing one PASS" grep -qE "^  declines +PASS" <<<"$out"
check "…the other FAIL on its outcome and field, expected vs got" \
  bash -c "grep -q '✗ outcome: expected registered, got declined' <<<\"\$0\" && grep -q '✗ field attending: expected yes, got no' <<<\"\$0\"" "$out"
printf 'name: x\npersonas:\n  - {name: a, says: [hi], expects: {state: busy}}\n' > "$VB_TMP/bad.yaml"
out=$(timeout 30 "$VB_BINARY" test --server "$server" --token e2e-secret-0123456789 --template meeting --suite "$VB_TMP/bad.yaml" 2>&1)
status=$?
check "a suite with a misspelt key exits 2 (got $status)" test $status -eq 2
check "…naming it" grep -q "suite.personas\[0\].expects: unknown key" <<<"$out"

out=$(timeout 120 "$VB_BINARY" call --server "$server" --token e2e-secret-0123456789 --from 0701 --to 0102222 --purpose p --question q --answer "<no_answer>" --wait 2>&1)
status=$?
check "a call that is not answered exits 1 (got $status)" test $status -eq 1
check "…saying no_answer" grep -q ": no_answer" <<<"$out"

out=$(timeout 30 "$VB_BINARY" call --server "$server" --token e2e-secret-0123456789 --from abc --to 0103333 --purpose p --question q 2>&1)
status=$?
check "an invalid number exits 2 (got $status)" test $status -eq 2
check "…naming the field" grep -q "caller_number: must be 3 to 20 digits" <<<"$out"

out=$(timeout 30 "$VB_BINARY" call --server "$server" --from 0701 --to 0104444 --purpose p --question q 2>&1)
status=$?
check "without the token the server refuses (exit 2)" test $status -eq 2
check "…with 401" grep -q "(401)" <<<"$out"

out=$(timeout 30 "$VB_BINARY" call --server "$server" --token e2e-secret-0123456789 --from 0701 --to 0105555 --purpose p --question q 2>&1)
check "without --wait it prints the new id and state" grep -qE "^ob-[0-9a-f]{8} queued$" <<<"$out"
vb_stop_server TERM
