import type { Projection } from './projection.ts';

/** Each tenant's revocations by epoch: what the fence checks a call's envelope against. */
export const revocationsProjection: Projection = {
  name: 'revocations',
  order: 'stream',
  tables: ['rm_revocations'],
  schema: `
    CREATE TABLE IF NOT EXISTS rm_revocations (
      tenant text NOT NULL, epoch int NOT NULL, n int NOT NULL, revocation jsonb NOT NULL,
      PRIMARY KEY (tenant, epoch, n)
    );`,
  async apply(sql, event) {
    if (event.type !== 'RevocationBatchApplied') return;
    const d = event.data;
    for (const [n, r] of d.revocations.entries())
      await sql.query('INSERT INTO rm_revocations (tenant, epoch, n, revocation) VALUES ($1, $2, $3, $4)', [d.tenant, d.epoch, n, JSON.stringify(r)]);
  },
};
