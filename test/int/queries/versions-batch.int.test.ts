import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool } from '../../../adapters/postgres/pool.ts';
import type { Sql } from '../../../domain/ports/read-model.ts';
import { versionsBatch } from '../../../queries/versions-batch.ts';
import { freshDatabase } from '../../support/database.ts';

let db: Awaited<ReturnType<typeof freshDatabase>>;
let pool: pg.Pool;

beforeAll(async () => {
  db = await freshDatabase();
  pool = createPool(db.url, 4);
  // Two tenants with the same plugin, scope and key: a read must never see the other tenant's rows.
  for (const tenant of ['acme', 'umbrella'])
    for (let k = 0; k < 20; k++)
      for (let v = 1; v <= (k % 3) + 1; v++)
        await pool.query(
          `INSERT INTO rm_record_versions (tenant, plugin, scope, key, version, body, body_bytes, kind, state, ends_at, subject_kind, closed,
             purpose, labels, created_ms, writer_job, writer_agent, writer_plugin, writer_tainted)
           VALUES ($1, $2, $3, $4, $5, to_jsonb($6::text), 0, 'note', 'active', 0, 'none', false, 'p', '[]', 0, 'j', 'a', 'notes', false)`,
          [tenant, 'notes', 's', `k${k}`, v, `${tenant}/k${k}/v${v}`],
        );
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

/** The pool, counting the statements sent. */
const counted = () => {
  let statements = 0;
  const sql: Sql = {
    query: (text, params) => {
      statements++;
      return pool.query(text, params as unknown[]) as never;
    },
  };
  return { sql, statements: () => statements };
};

describe('concurrent record reads share one statement', () => {
  it('given 40 concurrent reads, then each answers its own record, newest first, and they took fewer statements than reads', async () => {
    const c = counted();
    const read = versionsBatch(c.sql, 'v.version, v.body, first_value(v.version) OVER w AS newest');
    const refs = Array.from({ length: 40 }, (_, i) => ({ tenant: i % 2 ? 'acme' : 'umbrella', plugin: 'notes', scope: 's', key: `k${i % 20}` }));
    const answers = await Promise.all(refs.map((r) => read<{ version: number; body: string; newest: number }>(r)));
    answers.forEach((rows, i) => {
      const { tenant, key } = refs[i]!;
      const n = (Number(key.slice(1)) % 3) + 1;
      expect(rows.map((r) => r.body)).toEqual(Array.from({ length: n }, (_, v) => `${tenant}/${key}/v${n - v}`));
      expect(rows.every((r) => r.newest === n)).toBe(true);
      expect(rows.every((r) => !('batch_index' in r))).toBe(true);
    });
    expect(c.statements()).toBeLessThan(refs.length);
    expect(c.statements()).toBeGreaterThanOrEqual(1);
  });

  it('given a read of a record that does not exist, then it answers no rows', async () => {
    const read = versionsBatch(pool, 'v.version');
    const [none, some] = await Promise.all([
      read({ tenant: 'acme', plugin: 'notes', scope: 's', key: 'missing' }),
      read({ tenant: 'acme', plugin: 'notes', scope: 's', key: 'k2' }),
    ]);
    expect(none).toEqual([]);
    expect(some).toHaveLength(3);
  });

  it('given a statement that fails, then every read of its batch is refused with the error, and the next read works', async () => {
    const read = versionsBatch(pool, 'v.no_such_column');
    await expect(read({ tenant: 'acme', plugin: 'notes', scope: 's', key: 'k1' })).rejects.toThrow(/no_such_column/);
    const good = versionsBatch(pool, 'v.version');
    expect(await good({ tenant: 'acme', plugin: 'notes', scope: 's', key: 'k1' })).toHaveLength(2);
  });
});
