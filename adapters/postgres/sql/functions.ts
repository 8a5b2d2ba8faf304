import { readFileSync } from 'node:fs';
import { packageRoot } from '../../package-root.ts';

/** The SQL functions of the log, each defined once, in `functions/<name>.sql`. */
export type SqlFunction =
  'custodian_allocate_positions' | 'custodian_append' | 'custodian_append_from' | 'custodian_append_many' | 'custodian_append_guarded' | 'custodian_commit';

/** The text of a function's file: its `CREATE OR REPLACE FUNCTION`, as a migration applies it. */
export const sqlFunction = (name: SqlFunction): string => readFileSync(new URL(`adapters/postgres/sql/functions/${name}.sql`, packageRoot), 'utf8');
