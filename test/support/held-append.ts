import type pg from 'pg';
import { randomUUID } from 'node:crypto';
import type { AuditLine } from '../../domain/audit/lines.ts';
import type { AppendWith } from '../../domain/ports/event-store.ts';

/** An append held open after its positions, and the wait's end. */
export interface HeldAppend {
  /** What the append carries so that it waits. */
  readonly carries: AppendWith;
  /** Resolves once a statement of the database waits on a lock (the append, its positions taken). */
  waiting(): Promise<void>;
  /** Ends the wait (once; again does nothing). */
  release(): Promise<void>;
}

const line = (tenant: string): AuditLine => ({
  event: 0,
  tenant,
  kind: 'job_started',
  job: null,
  subject: null,
  epoch: null,
  record_refs: [],
  head: '{"at":',
  mid: ',"seq":',
  tail: '}',
});

/**
 * A PostgreSQL append held after it took its positions and made its first write: it carries
 * audit lines of two tenants, the first one's counter row new (that write, its xid), the
 * second one's held `FOR UPDATE` by an open transaction until `release`.
 */
export const heldAppend = async (pool: pg.Pool): Promise<HeldAppend> => {
  const id = randomUUID();
  const [fresh, held] = [`a-${id}`, `b-${id}`];
  await pool.query('INSERT INTO custodian_audit_sizes (tenant, size) VALUES ($1, 0)', [held]);
  const holder = await pool.connect();
  await holder.query('BEGIN');
  await holder.query('SELECT 1 FROM custodian_audit_sizes WHERE tenant = $1 FOR UPDATE', [held]);
  let released = false;
  return {
    carries: { audit: [line(fresh), line(held)] },
    async waiting() {
      const sql = "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'";
      while ((await pool.query(sql)).rows.length === 0) await new Promise((r) => setTimeout(r, 5));
    },
    async release() {
      if (released) return;
      released = true;
      await holder.query('COMMIT');
      holder.release();
    },
  };
};
