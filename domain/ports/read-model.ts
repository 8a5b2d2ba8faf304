/** What projections and queries need of a SQL read-model store (pg's clients fit it). */
export interface Sql {
  query<R extends object = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<{ rows: R[] }>;
}

/** A read-model store: its tables are the database's schema (made at start, never by a projection). */
export interface ReadModelStore extends Sql {
  /** Runs `work` in one transaction: all of its effects commit together or none do. */
  transaction<T>(work: (sql: Sql) => Promise<T>): Promise<T>;
}
