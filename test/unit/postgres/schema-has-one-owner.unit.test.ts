import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { POSITIONS_LOCK } from '../../../adapters/postgres/advisory-locks.ts';
import { checksumOf } from '../../../adapters/postgres/migrate.ts';
import { schemaMigrations } from '../../../adapters/postgres/schema.ts';

const MIGRATIONS = new URL('../../../adapters/postgres/migrations/', import.meta.url);

/** `<id> <checksum>` of every migration released: the lock an edit of one breaks. */
const released = readFileSync(new URL('./released-migrations.txt', import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '' && !l.startsWith('#'))
  .map((l) => {
    const [id, checksum] = l.split(' ');
    return { id: id!, checksum: checksum! };
  });

/** Every .ts and .sql file of the service's own code, with its text. */
const sources = (dir: string): { path: string; text: string }[] =>
  readdirSync(new URL(`../../../${dir}/`, import.meta.url), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ts|sql)$/.test(e.name))
    .map((e) => {
      const path = `${e.parentPath}/${e.name}`.replace(/.*\/(adapters|commands|queries|projections|domain)\//, '$1/');
      return { path, text: readFileSync(`${e.parentPath}/${e.name}`, 'utf8') };
    });
const service = ['adapters', 'commands', 'queries', 'projections', 'domain'].flatMap(sources);

describe('the schema has one owner', () => {
  it('every migration is a file NNNN_<id>.sql, numbered without gaps, each id its own', () => {
    const migrations = schemaMigrations();
    expect(migrations.length).toBe(readdirSync(MIGRATIONS).length);
    const ids = [...migrations.map((m) => m.id), 'event-macs-001'];
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });

  it('a released migration is never edited: its text still has the checksum it was released with', () => {
    const now = new Map(schemaMigrations().map((m) => [m.id, checksumOf(m.sql)]));
    for (const r of released) expect({ id: r.id, checksum: now.get(r.id) }).toEqual(r);
  });

  it('a new migration is added to the released list with its checksum (so the next edit of it is caught)', () => {
    const listed = new Set(released.map((r) => r.id));
    expect(
      schemaMigrations()
        .filter((m) => !listed.has(m.id))
        .map((m) => `${m.id} ${checksumOf(m.sql)}`),
    ).toEqual([]);
  });

  it('no adapter, query or projection makes a table or migrates on its own: only the migration files and the ledger', () => {
    const ddl = service.filter((s) => s.path.endsWith('.ts') && /\b(CREATE|ALTER|DROP) (TABLE|INDEX|FUNCTION|SEQUENCE)\b/.test(s.text)).map((s) => s.path);
    expect(ddl).toEqual(['adapters/postgres/migrate.ts']);
    const migrating = service.filter((s) => /\bmigrate\(/.test(s.text)).map((s) => s.path);
    expect(migrating.sort()).toEqual(['adapters/eventstore/postgres-legacy-macs.ts', 'adapters/postgres/schema.ts']);
  });

  it('an SQL function is defined only in migration files, and its newest definition takes the positions lock under the registry id', () => {
    const definers = service.filter((s) => /CREATE (?:OR REPLACE )?FUNCTION/.test(s.text)).map((s) => s.path);
    expect(definers.every((p) => p.startsWith('adapters/postgres/migrations/'))).toBe(true);
    const newest = schemaMigrations()
      .filter((m) => /FUNCTION custodian_allocate_positions\(/.test(m.sql))
      .at(-1)!;
    const ids = [...newest.sql.matchAll(/pg_advisory_(?:un)?lock\((\d+)\)/g)].map((m) => Number(m[1]));
    expect(ids.length).toBe(3);
    expect(new Set(ids)).toEqual(new Set([POSITIONS_LOCK]));
  });

  it("a query never spells a stream name: stream names reach SQL as values (parameters or the models' stream columns)", () => {
    const spelled = service
      .filter((s) => !s.path.startsWith('adapters/postgres/migrations/'))
      .filter((s) => /'(job|tenant|scope|agent|keys|collection)[a-z-]*:'\s*\|\|/.test(s.text))
      .map((s) => s.path);
    expect(spelled).toEqual([]);
  });
});
