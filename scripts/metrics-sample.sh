#!/usr/bin/env bash
# A short workload against a running service (npm start), then its custodian_ metrics:
# a tenant, a plugin, a job, a call, three puts, two gets, a refused put (stale) and a
# request with no ticket (refused), then GET /metrics without the default process metrics.
#   scripts/metrics-sample.sh            # URL and admin key as README "Your first record" finds them
set -euo pipefail
cd "$(dirname "$0")/.."
URL=${CUSTODIAN_URL:-http://127.0.0.1:${PORT:-41873}}
KEY=${CUSTODIAN_ADMIN_KEY:-$(cat "${CUSTODIAN_DATA_DIR:-./data}/secrets/admin-key")}
tenant="sample-$(date +%s)"
admin() { curl -sS --fail-with-body -o /dev/null -H "authorization: Bearer $KEY" -H 'content-type: application/json' "$@"; }
records() { curl -sS -o /dev/null -H "authorization: Bearer $1" -H 'content-type: application/json' "$URL/v1/records" -d "$2"; }

admin -X POST "$URL/v1/tenants" -d "{\"id\":\"$tenant\"}"
admin -X POST "$URL/v1/tenants/$tenant/plugins" -d '{"name":"notes","functions":["save"],"agents":["scribe"]}'
admin -X POST "$URL/v1/tenants/$tenant/jobs" -d '{"id":"job-1","agent":"scribe","plugin":"notes","subject":"s","input":"sample"}'
ticket=$(curl -sS --fail-with-body -H "authorization: Bearer $KEY" -H 'content-type: application/json' -X POST "$URL/v1/tenants/$tenant/jobs/job-1/calls" -d '{"function":"save"}' |
  node -e "console.log(JSON.parse(require('fs').readFileSync(0, 'utf8'))._meta['oz0/records'].ticket)")
for i in 1 2 3; do records "$ticket" "{\"op\":\"put\",\"scope\":\"tenant\",\"record_key\":\"notes/$i\",\"body\":{\"n\":$i},\"expect\":0}"; done
for i in 1 2; do records "$ticket" "{\"op\":\"get\",\"scope\":\"tenant\",\"record_key\":\"notes/$i\"}"; done
records "$ticket" '{"op":"put","scope":"tenant","record_key":"notes/1","body":{"n":0},"expect":0}'
records not-a-ticket '{"op":"get","scope":"tenant","record_key":"notes/1"}'
# The audit projection runs a moment behind: give it that moment before the scrape.
sleep 1
curl -sS --fail-with-body "$URL/metrics" | grep -E '^(# (HELP|TYPE) )?custodian_'
