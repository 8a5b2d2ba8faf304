import type { Sql } from '../domain/ports/read-model.ts';
import type { Applicable, Projection } from './projection.ts';

const insertAll = async (sql: Sql, items: readonly Applicable[]) => {
  const rows = items.flatMap(({ event }) =>
    event.type === 'RevocationBatchApplied'
      ? event.data.revocations.map((r, n) => ({ tenant: event.data.tenant, epoch: event.data.epoch, n, revocation: JSON.stringify(r) }))
      : [],
  );
  if (rows.length === 0) return;
  await sql.query(
    'INSERT INTO rm_revocations (tenant, epoch, n, revocation) SELECT t, e, n, r::jsonb FROM unnest($1::text[], $2::int[], $3::int[], $4::text[]) AS x(t, e, n, r)',
    [rows.map((r) => r.tenant), rows.map((r) => r.epoch), rows.map((r) => r.n), rows.map((r) => r.revocation)],
  );
};

/** Each tenant's revocations by epoch: what the fence checks a call's envelope against. */
export const revocationsProjection: Projection = {
  name: 'revocations',
  order: 'stream',
  canHandle: ['RevocationBatchApplied'],
  tables: ['rm_revocations'],
  apply: (sql, event, recorded) => insertAll(sql, [{ event, recorded }]),
  applyBatch: (sql, items) => insertAll(sql, items),
};
