import type { Sql } from '../domain/ports/read-model.ts';

export interface RecordRef {
  readonly tenant: string;
  readonly plugin: string;
  readonly scope: string;
  readonly key: string;
}

interface Waiting {
  readonly ref: RecordRef;
  readonly resolve: (rows: Record<string, unknown>[]) => void;
  readonly reject: (e: unknown) => void;
}

const MAX_BATCH = 256;

/**
 * Reads of whole records (every version) that arrive while one is running are sent together
 * as one statement — the read side of group commit. A lone read goes at once, alone, so it
 * waits for nothing; under load, concurrent audited gets share one round trip and one
 * transaction instead of one each. `select` is the columns, over `v` (rm_record_versions)
 * and window `w` (one record's versions, newest first); each read gets its own record's rows,
 * newest first.
 */
export const versionsBatch = (db: Sql, select: string) => {
  const text = `SELECT q.i AS batch_index, ${select}
    FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS q(tenant, plugin, scope, key, i)
    JOIN rm_record_versions v ON v.tenant = q.tenant AND v.plugin = q.plugin AND v.scope = q.scope AND v.key = q.key
    WINDOW w AS (PARTITION BY q.i ORDER BY v.version DESC)
    ORDER BY q.i, v.version DESC`;
  const queue: Waiting[] = [];
  let running = false;

  const drain = async () => {
    running = true;
    try {
      while (queue.length > 0) {
        const batch = queue.splice(0, MAX_BATCH);
        try {
          const { rows } = await db.query<Record<string, unknown> & { batch_index: number }>(text, [
            batch.map((w) => w.ref.tenant),
            batch.map((w) => w.ref.plugin),
            batch.map((w) => w.ref.scope),
            batch.map((w) => w.ref.key),
          ]);
          const each: Record<string, unknown>[][] = batch.map(() => []);
          for (const { batch_index, ...row } of rows) each[Number(batch_index) - 1]!.push(row);
          batch.forEach((w, i) => w.resolve(each[i]!));
        } catch (error) {
          for (const w of batch) w.reject(error);
        }
      }
    } finally {
      running = false;
    }
  };

  return <R>(ref: RecordRef): Promise<R[]> =>
    new Promise<R[]>((resolve, reject) => {
      queue.push({ ref, resolve: resolve as (rows: Record<string, unknown>[]) => void, reject });
      if (!running) void drain();
    });
};
