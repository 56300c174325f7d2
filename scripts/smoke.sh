#!/usr/bin/env bash
# End-to-end check of the two set-up commands on a fresh checkout: the server starts with no
# variables set (embedded PostgreSQL), answers /health and /ready, and the CLI works while the
# server runs and while it is stopped; a revoked key is refused.
set -euo pipefail
cd "$(dirname "$0")/.."
port=18080
log="$(mktemp)"
# Its own process group, so the signal reaches the server as Ctrl-C in a terminal would.
PORT=$port setsid npm start >"$log" 2>&1 &
server=$!
cleanup() { kill -TERM -- "-$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; }
trap cleanup EXIT

for _ in $(seq 1 60); do
  if curl -fsS "http://127.0.0.1:$port/ready" >/dev/null 2>&1; then break; fi
  sleep 0.5
done
curl -fsS "http://127.0.0.1:$port/health" | grep -q '"status":"ok"'
curl -fsS "http://127.0.0.1:$port/ready" | grep -q '"status":"ready"'

slug="smoke-$RANDOM"
npx jtrace project:create "$slug" Smoke Test >/dev/null
key_json="$(npx jtrace key:create "$slug" production smoke --json)"
api_key="$(node -e 'console.log(JSON.parse(process.argv[1]).apiKey)' "$key_json")"
prefix="$(node -e 'console.log(JSON.parse(process.argv[1]).keyPrefix)' "$key_json")"
body='{"events":[{"protocolVersion":"0.1","event":{"id":"evt_smoke","journeyId":"jrn_smoke","environment":"production","service":"smoke","entity":{"type":"t","id":"1"},"operation":"received","name":"n","timestamp":"2026-11-21T10:00:00Z"}}]}'
status="$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$port/v1/events/batch" -H "authorization: Bearer $api_key" -H 'content-type: application/json' -d "$body")"
[ "$status" = "202" ] || { echo "ingest answered $status"; exit 1; }
npx jtrace key:revoke "$prefix" >/dev/null
status="$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$port/v1/events/batch" -H "authorization: Bearer $api_key" -H 'content-type: application/json' -d "$body")"
[ "$status" = "401" ] || { echo "revoked key answered $status"; exit 1; }

cleanup
trap - EXIT
# npm exits at once; the server itself finishes its shutdown a moment later.
for _ in $(seq 1 30); do grep -q '"msg":"stopped"' "$log" && break; sleep 0.5; done
grep -q '"msg":"stopped"' "$log" || { echo "the server did not stop cleanly"; cat "$log"; exit 1; }
npx jtrace key:create "$slug" staging offline --json >/dev/null
echo "smoke: ok"
