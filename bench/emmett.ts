import pg from 'pg';

export interface EmmettAppender {
  readonly pool: pg.Pool;
  /** One `appendToStream(stream, [event])` with the stream's expected version. */
  append(stream: string, data: unknown): Promise<void>;
  close(): Promise<void>;
}

/**
 * Emmett's PostgreSQL event store (a dev dependency of the bench only) on a database of its
 * own, where it creates its own schema on first use. Our pool is handed to it so its
 * connections can be asked for their statistics like every other pool's. A package that cannot
 * load here gives a one-line reason instead of failing the bench.
 */
export const openEmmett = async (url: string): Promise<EmmettAppender | { readonly unavailable: string }> => {
  let pool: pg.Pool | null = null;
  try {
    const { getPostgreSQLEventStore } = await import('@event-driven-io/emmett-postgresql');
    pool = new pg.Pool({ connectionString: url, max: 40 });
    pool.on('error', () => undefined);
    const store = getPostgreSQLEventStore(url, { connectionOptions: { pool } });
    const versions = new Map<string, bigint>();
    const append = async (stream: string, data: unknown) => {
      const expected = versions.get(stream);
      const result = await store.appendToStream(stream, [{ type: 'BenchEvent', data: data as Record<string, unknown> }], expected === undefined ? {} : { expectedStreamVersion: expected });
      versions.set(stream, result.nextExpectedStreamVersion);
    };
    // The first append creates Emmett's schema: not part of any figure.
    await append(`warmup-${Date.now()}`, { n: 0 });
    const own = pool;
    return {
      pool: own,
      append,
      async close() {
        await store.close();
        await own.end().catch(() => undefined);
      },
    };
  } catch (error) {
    await pool?.end().catch(() => undefined);
    const e = error as Error & { code?: string };
    return { unavailable: `${e.code ? `${e.code}: ` : ''}${(e.message ?? String(error)).split('\n')[0]}` };
  }
};
