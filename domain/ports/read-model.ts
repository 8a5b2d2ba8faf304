import type { Migrator } from './migrations.ts';

/** What projections and queries need of a SQL read-model store (pg's clients fit it). */
export interface Sql {
  query<R extends object = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<{ rows: R[] }>;
}

/** `migrate`: the read models' tables through the database's one migration ledger. */
export interface ReadModelStore extends Sql, Migrator {
  /** Runs `work` in one transaction: all of its effects commit together or none do. */
  transaction<T>(work: (sql: Sql) => Promise<T>): Promise<T>;
}
