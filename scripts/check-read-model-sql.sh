#!/usr/bin/env bash
# Read-model tables (rm_*) are named only by the modules that own them: projections/ build
# them, queries/ read them. Anything else (commands, routes, the service wiring) calls a
# query module. Tests and benches may look at the tables directly.
# Fails listing each offending line; run by `npm run lint` and `.ci/run`.
set -euo pipefail
cd "$(dirname "$0")/.."

# Files still being moved by a branch in flight (issue 13.5). Each entry must still hold an
# rm_ reference: once it is clean, this check fails until the entry is removed here too.
PENDING=()

hits="$(grep -rnE --include='*.ts' '\brm_[a-z_]+' . \
  --exclude-dir=node_modules --exclude-dir=projections --exclude-dir=queries --exclude-dir=test --exclude-dir=bench --exclude-dir=data --exclude-dir=.git || true)"
status=0
for pending in "${PENDING[@]}"; do
  if ! grep -q "^\./$pending:" <<<"$hits"; then
    echo "check-read-model-sql: $pending names no rm_ table any more: remove it from PENDING in $0" >&2
    status=1
  fi
  hits="$(grep -v "^\./$pending:" <<<"$hits" || true)"
done
if [ -n "$hits" ]; then
  echo "check-read-model-sql: read-model tables named outside projections/ and queries/ (move the SQL into a query module):" >&2
  echo "$hits" >&2
  status=1
fi
exit "$status"
