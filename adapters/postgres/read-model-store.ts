import type pg from 'pg';
import type { ReadModelStore, Sql } from '../../domain/ports/read-model.ts';
import { inTransaction } from './pool.ts';
import { prepared } from './prepared.ts';

/** Parameterised queries run prepared; text without parameters (DDL, many statements) runs as is. */
const on = (q: Pick<pg.PoolClient, 'query'>): Sql => ({
  query: (async (text: string, params?: readonly unknown[]) => (params === undefined ? q.query(text) : q.query(prepared(text, params)))) as Sql['query'],
});

export const postgresReadModelStore = (pool: pg.Pool): ReadModelStore => ({
  ...on(pool),
  transaction: (work) => inTransaction(pool, (tx) => work(on(tx))),
});
