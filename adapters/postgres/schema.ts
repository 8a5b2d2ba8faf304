import { readdirSync, readFileSync } from 'node:fs';
import type pg from 'pg';
import type { Migration } from '../../domain/ports/migrations.ts';
import { auditCatchUpStep } from '../../projections/audit-upgrade.ts';
import { packageRoot } from '../package-root.ts';
import { migrate } from './migrate.ts';

/**
 * The one owner of the schema: every table and SQL function of a Custodian database — the log,
 * the keystore, files, snapshots, the relay's and consumers' offsets, the checkpoints and every
 * read model — is a file `migrations/NNNN_<id>.sql`, applied once, in the order of NNNN, by the
 * composition root (`applySchema`), with its checksum in the ledger (`migrate.ts`). No adapter
 * migrates on its own. A migration once released is never edited, and its text is the file
 * alone (nothing is spliced in): a change is a new file at the end. An SQL function's newest
 * body is in the newest file that (re)defines it.
 */
const DIRECTORY = new URL('adapters/postgres/migrations/', packageRoot);

/** `NNNN_<id>.sql`: NNNN orders them; `<id>` is the ledger's key (kept from before the files). */
const FILE = /^(\d{4})_([a-z0-9-]+)\.sql$/;

/** Every migration of this build, in order. Throws on a file that breaks the naming rule. */
export const schemaMigrations = (): readonly Migration[] => {
  const files = readdirSync(DIRECTORY).sort();
  return files.map((file, i) => {
    const m = FILE.exec(file);
    if (!m || Number(m[1]) !== i + 1) throw new Error(`adapters/postgres/migrations/${file}: expected ${String(i + 1).padStart(4, '0')}_<id>.sql`);
    return { id: m[2]!, sql: readFileSync(new URL(file, DIRECTORY), 'utf8') };
  });
};

/**
 * Steps that are code, each run once just before the migration it must precede, in the same
 * transaction and ledger: the lines of a log written before the line store that the released
 * audit projection had not yet derived (`eventstore-009` then freezes every derived line).
 */
const CODE_STEPS: readonly { before: string; step: Migration }[] = [{ before: 'eventstore-009', step: auditCatchUpStep }];

/** Every step of the schema in the order it applies: the migration files, each code step before the file it precedes. */
export const schemaSteps = (): readonly Migration[] =>
  schemaMigrations().flatMap((m) => [...CODE_STEPS.filter((c) => c.before === m.id).map((c) => c.step), m]);

/** Brings a database to this build's schema: what is not applied yet, once, under the migration lock. */
export const applySchema = (pool: pg.Pool): Promise<void> => migrate(pool, schemaSteps());
