import type pg from 'pg';
import type { ReadModelStore, Sql } from '../../domain/ports/read-model.ts';
import { inTransaction } from './pool.ts';

export const postgresReadModelStore = (pool: pg.Pool): ReadModelStore => ({
  query: (async (text: string, params?: readonly unknown[]) => pool.query(text, params as unknown[])) as Sql['query'],
  transaction: (work) => inTransaction(pool, (tx) => work(tx as unknown as Sql)),
});
