import type pg from 'pg';
import type { SnapshotStore } from '../../domain/ports/snapshots.ts';
import { prepared } from './prepared.ts';

export const postgresSnapshots = async (pool: pg.Pool): Promise<SnapshotStore> => {
  return {
    async load(stream) {
      const { rows } = await pool.query<{ revision: number; state: string }>(
        prepared('SELECT revision, state FROM custodian_snapshots WHERE stream = $1', [stream]),
      );
      return rows[0] ? { revision: Number(rows[0].revision), state: rows[0].state } : null;
    },
    async loadMany(streams) {
      const found = new Map<string, { revision: number; state: string }>();
      if (streams.length === 0) return found;
      const { rows } = await pool.query<{ stream: string; revision: number; state: string }>(
        prepared('SELECT stream, revision, state FROM custodian_snapshots WHERE stream = ANY($1::text[])', [streams]),
      );
      for (const r of rows) found.set(r.stream, { revision: Number(r.revision), state: r.state });
      return found;
    },
    async saveMany(rows) {
      if (rows.length === 0) return;
      await pool.query(
        prepared(
          `INSERT INTO custodian_snapshots (stream, revision, state)
           SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[])
           ON CONFLICT (stream) DO UPDATE SET revision = EXCLUDED.revision, state = EXCLUDED.state WHERE custodian_snapshots.revision < EXCLUDED.revision`,
          [rows.map(([stream]) => stream), rows.map(([, s]) => s.revision), rows.map(([, s]) => s.state)],
        ),
      );
    },
    async save(stream, s) {
      await pool.query(
        prepared(
          `INSERT INTO custodian_snapshots (stream, revision, state) VALUES ($1, $2, $3)
           ON CONFLICT (stream) DO UPDATE SET revision = EXCLUDED.revision, state = EXCLUDED.state WHERE custodian_snapshots.revision < EXCLUDED.revision`,
          [stream, s.revision, s.state],
        ),
      );
    },
  };
};
