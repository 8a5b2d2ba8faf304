import { APPEND_ROW_KINDS, type AppendRow, type AppendRowKind } from '../../domain/ports/append-rows.ts';

/**
 * The statement that writes (or locks) each kind of append row in the append's transaction:
 * many rows at once, over arrays (one parameter per column, in order), answering `id` for each
 * row written — a row not answered conflicted, and the append fails whole (`AppendRowTaken`).
 */
const STATEMENTS: Record<AppendRowKind, string> = {
  /** Keys a put's append names that must still exist when it commits (locked until then: a shred waits). */
  data_key_used: 'SELECT key_id::text AS id FROM custodian_data_keys WHERE key_id = ANY($1::uuid[]) FOR SHARE',
  /** A data subject's first key, written with the append that first needs it. */
  subject_key_made: `INSERT INTO custodian_subject_keys (tenant, subject, wrapped) SELECT * FROM unnest($1::text[], $2::text[], $3::bytea[])
  ON CONFLICT DO NOTHING RETURNING tenant || E'\\n' || subject AS id`,
  /**
   * New data keys: a row wrapped by a subject's key is written only while that very key is the
   * subject's (locked, so an erasure waits for the append), never under a key an erasure
   * deleted meanwhile.
   */
  data_key_made: `INSERT INTO custodian_data_keys (key_id, tenant, plugin, scope, record_key, owner, wrapped)
  SELECT r.key_id, r.tenant, r.plugin, r.scope, r.record_key, r.owner, r.wrapped
  FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bytea[], $8::bytea[])
    AS r(key_id, tenant, plugin, scope, record_key, owner, wrapped, kek)
  WHERE r.owner = 'tenant'
     OR EXISTS (SELECT 1 FROM custodian_subject_keys s WHERE s.tenant = r.tenant AND r.owner = 'subject:' || s.subject AND s.wrapped = r.kek FOR SHARE)
  ON CONFLICT DO NOTHING RETURNING key_id::text AS id`,
};

export const appendRowStatement = (kind: AppendRowKind): string => STATEMENTS[kind];

/** Rows grouped by kind, kinds in lock order: every transaction takes key-row locks in one order. */
export const byLockOrder = (rows: readonly AppendRow[]): [AppendRowKind, AppendRow[]][] =>
  APPEND_ROW_KINDS.map((kind) => [kind, rows.filter((r) => r.kind === kind)] as [AppendRowKind, AppendRow[]]).filter(([, rs]) => rs.length > 0);
