#!/usr/bin/env bash
# Runs every end-to-end suite against the voicebridge binary given as $1 and prints one summary line.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
binary=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
export VB_BINARY=$binary
export VB_ARTIFACTS=${VB_ARTIFACTS:-$(cd "$here/../.." && pwd)/test-artifacts}
mkdir -p "$VB_ARTIFACTS"
passed=0; failed=0; failures=
for suite in "$here"/suite-*.sh; do
  name=$(basename "$suite")
  echo "== $name"
  started=$SECONDS
  out=$(bash "$suite" 2>&1); status=$?
  echo "$out"
  echo "== $name took $((SECONDS - started)) s"   # where make test's time goes (issue 37)
  p=$(grep -c '^ok ' <<<"$out"); f=$(grep -c '^not ok ' <<<"$out")
  passed=$((passed + p)); failed=$((failed + f))
  [ "$f" -gt 0 ] && failures+=$(grep '^not ok ' <<<"$out" | sed "s|^|$name: |")$'\n'
  if [ $status -ne 0 ] && [ "$f" -eq 0 ]; then failed=$((failed + 1)); echo "not ok - $name exited $status"; failures+="$name exited $status"$'\n'; fi
done
# The failures again at the end, where a CI log's tail shows them.
[ "$failed" -eq 0 ] || printf '== e2e checks that failed ==\n%s' "$failures"
echo "e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
