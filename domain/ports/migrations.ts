import type { Sql } from './read-model.ts';

/**
 * One step of the database's schema, applied once and recorded in the migration ledger with
 * the checksum of its text. A migration once released is never edited: a change is a new one.
 */
export interface Migration {
  /** Unique across every table's migrations, e.g. `eventstore-003` or `read-model-jobs-001`. */
  readonly id: string;
  /** Its SQL, run as it stands (or, with `run`, the statements `run` sends): what the checksum covers. */
  readonly sql: string;
  /** For a step that is more than a fixed text (a backfill over the log): runs in the ledger's transaction. */
  readonly run?: (tx: Sql) => Promise<void>;
}
