import * as E from 'fp-ts/lib/Either.js';
import type { Clock } from '../domain/ports/clock.ts';
import type { EventStore } from '../domain/ports/event-store.ts';
import type { Sql } from '../domain/ports/read-model.ts';
import type { Sealer } from '../domain/ports/sealer.ts';
import { importDecider, type ImportedVersion } from '../domain/records/import.ts';
import { recordsStream } from '../domain/records/rules.ts';
import { canonicalJson, sha256Hex } from '../domain/shared/hash.ts';
import { invalid, refusal, type Refusal } from '../domain/shared/refusal.ts';
import type { ExportLine } from '../queries/export.ts';
import { tenantAbsence, tenantHasRecords } from '../queries/tenants.ts';
import { handleCommand } from './handle.ts';

/**
 * `custodian import`: loads an export into an empty tenant, version by version, as the facts
 * it shows. The manifest's SHA-256 must match the lines, so a damaged file writes nothing.
 * Imported versions are sealed with the tenant key: which data subject wrote them does not
 * travel in an export, and neither does dedupe text (it was never kept).
 */
export const importTenant = async (
  deps: { store: EventStore; db: Sql; sealer: Sealer; clock: Clock },
  tenant: string,
  text: string,
): Promise<E.Either<Refusal, { records: number; versions: number; position: number | null }>> => {
  const absent = await tenantAbsence(deps.db, tenant);
  if (absent) return E.left(absent);
  if (await tenantHasRecords(deps.db, tenant))
    return E.left(refusal('not_empty', { reason: `tenant ${tenant} has records, and import loads only into a tenant with none` }));

  const raw = text.split('\n').filter((l) => l.length > 0);
  const last = raw.pop();
  let manifest: { sha256?: unknown };
  let lines: ExportLine[];
  try {
    manifest = (JSON.parse(last ?? '') as { manifest?: { sha256?: unknown } }).manifest ?? {};
    lines = raw.map((l) => JSON.parse(l) as ExportLine);
  } catch {
    return E.left(invalid('body', 'an export is JSON Lines ending in a manifest line'));
  }
  if (manifest.sha256 !== sha256Hex(raw.map((l) => `${l}\n`).join(''))) return E.left(invalid('manifest', 'the manifest sha256 does not match the lines'));

  const byStream = new Map<string, ExportLine[]>();
  for (const l of lines) {
    const stream = recordsStream(tenant, l.plugin, l.scope);
    byStream.set(stream, [...(byStream.get(stream) ?? []), l]);
  }
  let position: number | null = null;
  const now = deps.clock.now();
  for (const [stream, group] of byStream) {
    const versions: ImportedVersion[] = [];
    for (const l of group) {
      const ctx = { tenant, plugin: l.plugin, scope: l.scope, key: l.key, version: l.version, data_subject: null };
      versions.push({
        key: l.key,
        version: l.version,
        body: await deps.sealer.seal(ctx, 'body', canonicalJson(l.body)),
        body_bytes: Buffer.byteLength(JSON.stringify(l.body)),
        kind: l.kind,
        state: l.state,
        supersedes: l.supersedes,
        ends_at: l.ends_at,
        subject_kind: l.subject_kind,
        closed: l.closed,
        purpose: l.purpose,
        labels: l.labels,
        created_ms: l.created_ms,
      });
    }
    const { plugin, scope } = group[0]!;
    const imported = await handleCommand(deps.store, stream, importDecider, { tenant, plugin, scope, versions, now }, { tenant });
    if (E.isLeft(imported)) return imported;
    position = imported.right.position ?? position;
  }
  return E.right({ records: new Set(lines.map((l) => `${l.plugin}|${l.scope}|${l.key}`)).size, versions: lines.length, position });
};
