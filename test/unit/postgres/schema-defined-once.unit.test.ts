import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { POSITIONS_LOCK } from '../../../adapters/postgres/advisory-locks.ts';
import {
  blobMigrations,
  callRequestMigrations,
  consumerOffsetMigrations,
  eventStoreMigrations,
  keystoreMigrations,
  relayMigrations,
  snapshotMigrations,
} from '../../../adapters/postgres/schema.ts';
import type { Sealer } from '../../../domain/ports/sealer.ts';
import { allProjections } from '../../../projections/all.ts';
import { checkpointMigrations } from '../../../projections/runner.ts';

const unused = () => {
  throw new Error("only the projections' migrations are read here");
};
const noSealing: Sealer = { seal: unused, open: unused, dedupeDigest: unused };

const FUNCTIONS = new URL('../../../adapters/postgres/sql/functions/', import.meta.url);
const functionFiles = readdirSync(FUNCTIONS).filter((f) => f.endsWith('.sql'));

/** Every .ts and .sql file of the service's own code, with its text. */
const sources = (dir: string): { path: string; text: string }[] =>
  readdirSync(new URL(`../../../${dir}/`, import.meta.url), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ts|sql)$/.test(e.name))
    .map((e) => {
      const path = `${e.parentPath}/${e.name}`;
      return { path, text: readFileSync(path, 'utf8') };
    });

describe('the schema', () => {
  it('gives every migration of every table an id of its own', () => {
    const ids = [
      ...eventStoreMigrations,
      ...keystoreMigrations,
      ...blobMigrations,
      ...snapshotMigrations,
      ...callRequestMigrations,
      ...relayMigrations,
      ...consumerOffsetMigrations,
      ...checkpointMigrations,
      ...allProjections({ sealer: noSealing }).flatMap((p) => p.migrations),
      { id: 'event-macs-001' },
    ].map((m) => m.id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });

  it('defines each SQL function in one file, named after it, and nowhere else', () => {
    expect(functionFiles.length).toBeGreaterThanOrEqual(5);
    const everywhere = ['adapters', 'commands', 'queries', 'projections', 'domain'].flatMap(sources);
    for (const file of functionFiles) {
      const name = file.replace(/\.sql$/, '');
      const text = readFileSync(new URL(file, FUNCTIONS), 'utf8');
      expect([...text.matchAll(/CREATE (?:OR REPLACE )?FUNCTION (\w+)/g)].map((m) => m[1])).toEqual([name]);
      const definers = everywhere
        .filter((s) => new RegExp(`FUNCTION\\s+${name}\\s*\\(`).test(s.text))
        .map((s) => s.path.replace(/.*\/adapters\//, 'adapters/'));
      expect(definers).toEqual([`adapters/postgres/sql/functions/${file}`]);
    }
  });

  it('takes the positions lock under the id the lock registry gives it', () => {
    const text = readFileSync(new URL('custodian_allocate_positions.sql', FUNCTIONS), 'utf8');
    const ids = [...text.matchAll(/pg_advisory_(?:un)?lock\((\d+)\)/g)].map((m) => Number(m[1]));
    expect(ids.length).toBe(3);
    expect(new Set(ids)).toEqual(new Set([POSITIONS_LOCK]));
  });
});
