#!/usr/bin/env bash
# Prints docs/reference/cli.md from the binary's own help, so the page cannot drift from the CLI:
# `make test` compares the two after its build. After changing a command's help:
#   scripts/cli-reference.sh .build/debug/voicebridge > docs/reference/cli.md
set -euo pipefail
binary=${1:?usage: $0 path/to/voicebridge}
export COLUMNS=100   # the help's line width, the same wherever it is made
cat <<'HEAD'
# Command line

`voicebridge` is one binary: the server, and the clients that talk to a running one. This page is
its own help, made by `scripts/cli-reference.sh` (`make test` fails when the two differ). The REST
API the clients use: [REST API](api.md).

HEAD
echo '```text'
"$binary" --help
echo '```'
for sub in $("$binary" --help | sed -n '/^SUBCOMMANDS:/,/^$/p' | grep -E '^  [a-z]' | awk '{print $1}'); do
  printf '\n## `voicebridge %s`\n\n```text\n' "$sub"
  "$binary" help "$sub"
  echo '```'
done
