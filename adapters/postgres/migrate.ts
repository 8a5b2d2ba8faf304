import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { Migration } from '../../domain/ports/migrations.ts';
import { MIGRATION_LOCK } from './advisory-locks.ts';
import { inTransaction } from './pool.ts';

export type { Migration } from '../../domain/ports/migrations.ts';

/** The ledger: one row per migration applied, with the checksum of the text it was applied with. */
const LEDGER = 'custodian_migrations';

/**
 * The sha256 of a migration's text, line by line with the indentation, blank lines and whole-line
 * `--` comments left out: moving a migration in the source (re-indenting it) or rewording its
 * comments is not editing it; changing a word of its SQL is.
 */
export const checksumOf = (sql: string): string =>
  createHash('sha256')
    .update(
      sql
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== '' && !line.startsWith('--'))
        .join('\n'),
    )
    .digest('hex');

/** Thrown at start when an applied migration's text is not the one the ledger recorded. */
export class EditedMigration extends Error {
  constructor(readonly migration: string) {
    super(
      `migration ${migration} was applied with another text than this build's: an applied migration is never edited; restore its text and put the change in a new migration`,
    );
    this.name = 'EditedMigration';
  }
}

/**
 * Builds before the checksums kept a ledger of ids alone. It is upgraded in place: the column
 * is added, and an applied migration without a checksum gets the one of this build's text
 * (trusted once, as the database stands at the upgrade).
 */
const ensureLedger = async (tx: pg.PoolClient) => {
  await tx.query(`CREATE TABLE IF NOT EXISTS ${LEDGER} (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now(), checksum text)`);
  const { rows } = await tx.query(
    `SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 AND column_name = 'checksum'`,
    [LEDGER],
  );
  if (rows.length === 0) await tx.query(`ALTER TABLE ${LEDGER} ADD COLUMN checksum text`);
};

/**
 * Applies each migration not yet in the ledger, in the order given, in one transaction under
 * the migration lock, so instances starting at once take turns and the second finds the work
 * done. An applied migration whose text changed stops the start, naming it; nothing is applied.
 */
export const migrate = async (pool: pg.Pool, migrations: readonly Migration[]): Promise<void> => {
  await inTransaction(pool, async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await ensureLedger(tx);
    const { rows } = await tx.query<{ id: string; checksum: string | null }>(`SELECT id, checksum FROM ${LEDGER} WHERE id = ANY($1::text[])`, [
      migrations.map((m) => m.id),
    ]);
    const applied = new Map(rows.map((r) => [r.id, r.checksum]));
    for (const m of migrations) {
      const checksum = checksumOf(m.sql);
      if (!applied.has(m.id)) continue;
      const recorded = applied.get(m.id);
      if (recorded === null) await tx.query(`UPDATE ${LEDGER} SET checksum = $2 WHERE id = $1`, [m.id, checksum]);
      else if (recorded !== checksum) throw new EditedMigration(m.id);
    }
    for (const m of migrations) {
      if (applied.has(m.id)) continue;
      if (m.run) await m.run(tx);
      else await tx.query(m.sql);
      await tx.query(`INSERT INTO ${LEDGER} (id, checksum) VALUES ($1, $2)`, [m.id, checksumOf(m.sql)]);
    }
  });
};
