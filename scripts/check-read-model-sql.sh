#!/usr/bin/env bash
# Read-model tables (rm_*) are named only by the modules that own them: projections/ build
# them, queries/ read them. Anything else (commands, routes, the service wiring) calls a
# query module. Tests and benches may look at the tables directly.
# A migration's frozen SQL function text (audit-lines-migration.ts, as the .sql function files,
# which are not scanned) names the tables its function reads as they were when it was applied.
# Fails listing each offending line; run by `npm run lint` and `.ci/run`.
set -euo pipefail
cd "$(dirname "$0")/.."

hits="$(grep -rnE --include='*.ts' '\brm_[a-z_]+' . \
  --exclude-dir=node_modules --exclude-dir=projections --exclude-dir=queries --exclude-dir=test --exclude-dir=bench --exclude-dir=data --exclude-dir=.git \
  --exclude=audit-lines-migration.ts || true)"
status=0
if [ -n "$hits" ]; then
  echo "check-read-model-sql: read-model tables named outside projections/ and queries/ (move the SQL into a query module):" >&2
  echo "$hits" >&2
  status=1
fi
exit "$status"
