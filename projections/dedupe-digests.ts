import type { Sealer } from '../domain/ports/sealer.ts';
import type { Projection } from './projection.ts';

/**
 * The dedupe digest of each record's newest version. The log holds digests sealed (so a
 * shredded key takes them along); this table holds the keyed digest, never the text.
 */
export const dedupeDigestsProjection = (sealer: Sealer): Projection => ({
  name: 'dedupe-digests',
  order: 'stream',
  tables: ['rm_dedupe_digests'],
  schema: `
    CREATE TABLE IF NOT EXISTS rm_dedupe_digests (
      tenant text NOT NULL, plugin text NOT NULL, scope text NOT NULL, key text NOT NULL, version int NOT NULL,
      digest text NOT NULL,
      PRIMARY KEY (tenant, plugin, scope, key)
    );
    CREATE INDEX IF NOT EXISTS rm_dedupe_digests_by_digest ON rm_dedupe_digests (tenant, plugin, scope, digest);`,
  async apply(sql, event) {
    if (event.type === 'RecordRemoved') {
      await sql.query('DELETE FROM rm_dedupe_digests WHERE tenant = $1 AND plugin = $2 AND scope = $3 AND key = $4', [
        event.data.tenant, event.data.plugin, event.data.scope, event.data.key,
      ]);
      return;
    }
    if (event.type !== 'RecordVersionWritten') return;
    const d = event.data;
    const where = [d.tenant, d.plugin, d.scope, d.key];
    const digest = d.dedupe === null ? null : await sealer.open({ ...d, data_subject: d.data_subject }, 'dedupe', d.dedupe);
    if (digest === null) {
      await sql.query('DELETE FROM rm_dedupe_digests WHERE tenant = $1 AND plugin = $2 AND scope = $3 AND key = $4', where);
      return;
    }
    await sql.query(
      `INSERT INTO rm_dedupe_digests (tenant, plugin, scope, key, version, digest) VALUES ($1,$2,$3,$4,$5,$6)
       ON CONFLICT (tenant, plugin, scope, key) DO UPDATE SET version = EXCLUDED.version, digest = EXCLUDED.digest`,
      [...where, d.version, digest],
    );
  },
});
