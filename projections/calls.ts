import type { Projection } from './projection.ts';

/** Calls by ticket hash: how the records API finds the call behind a bearer ticket. */
export const callsProjection: Projection = {
  name: 'calls',
  order: 'stream',
  tables: ['rm_calls'],
  async apply(sql, event) {
    switch (event.type) {
      case 'CallMinted': {
        const d = event.data;
        await sql.query(
          `INSERT INTO rm_calls (ticket_hash, tenant, job, run, call, step, function, idempotency_key, startup, minted_ms)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
          [d.ticket_hash, d.tenant, d.job, d.run, d.call, d.step, d.function, d.idempotency_key, d.startup, d.minted_ms],
        );
        return;
      }
      case 'CallEnded':
        await sql.query('UPDATE rm_calls SET ended_ms = $4 WHERE tenant = $1 AND job = $2 AND call = $3', [
          event.data.tenant,
          event.data.job,
          event.data.call,
          event.data.ended_ms,
        ]);
        return;
      default:
        return;
    }
  },
};
