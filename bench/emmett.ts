import type { Event } from '@event-driven-io/emmett';
import pg from 'pg';

const JSON_AND_INT8 = [20, 114, 3802];

type RecordPut = Event<'RecordPut', { body: Record<string, unknown>; version: number }>;
interface RecordState {
  readonly version: number;
}
/** A record as its get answers it: the newest version and its body. */
export interface RecordView {
  readonly version: number;
  readonly body: Record<string, unknown>;
}
/** The record's version is not the one the put expected: the caller answers 409. */
export class StaleRecord extends Error {
  constructor(readonly current: number) {
    super(`stale: current ${current}`);
  }
}

export interface EmmettAppender {
  readonly pool: pg.Pool;
  /** One `appendToStream(stream, [event])` with the stream's expected version. */
  append(stream: string, data: unknown): Promise<void>;
  /**
   * A record's put as an Emmett user writes it: `CommandHandler` reads the record's stream,
   * folds it, decides (`expect` must be its version, else `StaleRecord`) and appends with the
   * version it read. The new version.
   */
  putRecord(stream: string, body: Record<string, unknown>, expect: number): Promise<number>;
  /** A record's get as an Emmett user writes it: `aggregateStream` folds the record's stream. Null when it has none. */
  getRecord(stream: string): Promise<RecordView | null>;
  close(): Promise<void>;
}

/**
 * Emmett's PostgreSQL event store (a dev dependency of the bench only) on a database of its
 * own, where it creates its own schema on first use. Our pool is handed to it so its
 * connections can be asked for their statistics like every other pool's. A package that cannot
 * load here gives a one-line reason instead of failing the bench.
 */
export const openEmmett = async (url: string, max = 40): Promise<EmmettAppender | { readonly unavailable: string }> => {
  let pool: pg.Pool | null = null;
  try {
    // Emmett's driver (dumbo) sets process-wide pg type parsers on first use: int8 as BigInt,
    // json/jsonb through its own serializer. In this process the service's code expects
    // numbers, so the globals are put back and Emmett gets its parsers on its own pool only.
    const saved = JSON_AND_INT8.map((oid) => [oid, pg.types.getTypeParser(oid)] as const);
    const { getPostgreSQLEventStore } = await import('@event-driven-io/emmett-postgresql');
    const { CommandHandler } = await import('@event-driven-io/emmett');
    const types = {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === 20
          ? (v: string) => BigInt(v)
          : oid === 114 || oid === 3802
            ? (v: string) => JSON.parse(v) as unknown
            : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    };
    pool = new pg.Pool({ connectionString: url, max, types });
    pool.on('error', () => undefined);
    const store = getPostgreSQLEventStore(url, { connectionOptions: { pool } });
    const versions = new Map<string, bigint>();
    const append = async (stream: string, data: unknown) => {
      const expected = versions.get(stream);
      const result = await store.appendToStream(
        stream,
        [{ type: 'BenchEvent', data: data as Record<string, unknown> }],
        expected === undefined ? {} : { expectedStreamVersion: expected },
      );
      versions.set(stream, result.nextExpectedStreamVersion);
    };
    const handleRecord = CommandHandler<RecordState, RecordPut>({ evolve: (_, e) => ({ version: e.data.version }), initialState: () => ({ version: 0 }) });
    const putRecord = async (stream: string, body: Record<string, unknown>, expect: number) => {
      const { newState } = await handleRecord(store, stream, (state) => {
        if (state.version !== expect) throw new StaleRecord(state.version);
        return { type: 'RecordPut', data: { body, version: state.version + 1 } };
      });
      return newState.version;
    };
    const getRecord = async (stream: string) => {
      const { state, streamExists } = await store.aggregateStream<RecordView | null, RecordPut>(stream, {
        evolve: (_: RecordView | null, e: RecordPut): RecordView => ({ version: e.data.version, body: e.data.body }),
        initialState: () => null,
      });
      return streamExists ? state : null;
    };
    // The first append creates Emmett's schema: not part of any figure.
    await append(`warmup-${Date.now()}`, { n: 0 });
    for (const [oid, parser] of saved) pg.types.setTypeParser(oid, parser);
    if (typeof (await pool.query<{ n: unknown }>('SELECT 1::int8 AS n')).rows[0]!.n !== 'bigint') throw new Error('Emmett pool lost its int8 parser');
    const own = pool;
    return {
      pool: own,
      append,
      putRecord,
      getRecord,
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
