import type { Sql } from '../domain/ports/read-model.ts';
import { jobStream } from '../domain/shared/names.ts';
import type { Projection } from './projection.ts';
import { inRuns } from './runs.ts';

/** A run of CallMinted: one UPDATE adding each job's count. */
const countCalls = async (sql: Sql, calls: readonly { tenant: string; job: string }[]) => {
  const counts = new Map<string, { tenant: string; job: string; n: number }>();
  for (const c of calls) {
    const id = `${c.tenant}\u0000${c.job}`;
    const seen = counts.get(id);
    if (seen) seen.n++;
    else counts.set(id, { ...c, n: 1 });
  }
  const rows = [...counts.values()];
  await sql.query(
    `UPDATE rm_jobs j SET calls_minted = j.calls_minted + c.n FROM unnest($1::text[], $2::text[], $3::int[]) AS c(tenant, job, n)
     WHERE j.tenant = c.tenant AND j.id = c.job`,
    [rows.map((r) => r.tenant), rows.map((r) => r.job), rows.map((r) => r.n)],
  );
};

/** Jobs as the runtime and the records API look them up, with a count of calls minted. */
export const jobsProjection: Projection = {
  name: 'jobs',
  order: 'stream',
  canHandle: ['JobStarted', 'JobEnded', 'EnvelopeBlockAppended', 'JobStopped', 'LabelsJoined', 'CallMinted'],
  tables: ['rm_jobs'],
  async apply(sql, event) {
    switch (event.type) {
      case 'JobStarted': {
        const d = event.data;
        await sql.query(
          `INSERT INTO rm_jobs (tenant, id, run, status, agent, plugin, install_gen, purpose, subject, data_subject, labels, scopes, expires_ms, started_ms, parent, stream)
           VALUES ($1, $2, $3, 'running', $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
           ON CONFLICT (tenant, id) DO UPDATE SET run = EXCLUDED.run, status = 'running', agent = EXCLUDED.agent,
             plugin = EXCLUDED.plugin, install_gen = EXCLUDED.install_gen, purpose = EXCLUDED.purpose, subject = EXCLUDED.subject,
             data_subject = EXCLUDED.data_subject, labels = EXCLUDED.labels, scopes = EXCLUDED.scopes,
             expires_ms = EXCLUDED.expires_ms, started_ms = EXCLUDED.started_ms, ended_ms = NULL, calls_minted = 0,
             parent = EXCLUDED.parent, chain = '[]', epoch = NULL`,
          [
            d.tenant,
            d.job,
            d.run,
            d.agent,
            d.plugin,
            d.install_gen,
            d.purpose,
            d.subject,
            d.data_subject,
            JSON.stringify(d.labels),
            JSON.stringify(d.scopes),
            d.expires_ms,
            d.started_ms,
            d.parent,
            jobStream(d.tenant, d.job),
          ],
        );
        return;
      }
      case 'JobEnded':
        await sql.query(`UPDATE rm_jobs SET status = 'ended', ended_ms = $3 WHERE tenant = $1 AND id = $2`, [
          event.data.tenant,
          event.data.job,
          event.data.ended_ms,
        ]);
        return;
      case 'EnvelopeBlockAppended':
        await sql.query(
          `UPDATE rm_jobs SET chain = chain || jsonb_build_array($4::jsonb), epoch = ($4::jsonb #>> '{block,epoch}')::int
           WHERE tenant = $1 AND id = $2 AND run = $3`,
          [event.data.tenant, event.data.job, event.data.run, JSON.stringify(event.data.signed)],
        );
        return;
      case 'JobStopped':
        await sql.query(`UPDATE rm_jobs SET status = 'stopped', ended_ms = $4 WHERE tenant = $1 AND id = $2 AND run = $3`, [
          event.data.tenant,
          event.data.job,
          event.data.run,
          event.data.stopped_ms,
        ]);
        return;
      case 'LabelsJoined':
        await sql.query(
          `UPDATE rm_jobs SET labels = (SELECT jsonb_agg(DISTINCT l ORDER BY l) FROM jsonb_array_elements_text(labels || $3::jsonb) AS l)
           WHERE tenant = $1 AND id = $2 AND run = $4`,
          [event.data.tenant, event.data.job, JSON.stringify(event.data.labels), event.data.run],
        );
        return;
      case 'CallMinted':
        // Not idempotent on purpose: replaying an event twice would show here.
        await sql.query('UPDATE rm_jobs SET calls_minted = calls_minted + 1 WHERE tenant = $1 AND id = $2', [event.data.tenant, event.data.job]);
        return;
      default:
        return;
    }
  },
  async applyBatch(sql, items) {
    await inRuns(
      items,
      ({ event }) => (event.type === 'CallMinted' ? { tenant: event.data.tenant, job: event.data.job } : null),
      (calls) => countCalls(sql, calls),
      ({ event, recorded }) => jobsProjection.apply(sql, event, recorded),
    );
  },
};
