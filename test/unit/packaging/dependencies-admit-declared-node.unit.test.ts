import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import semver from 'semver';

// Every package `npm ci` installs must declare support for every Node the project declares;
// otherwise npm warns EBADENGINE and the project runs on that Node only by luck.
const root = new URL('../../../', import.meta.url);
const readJson = (file: string) => JSON.parse(readFileSync(new URL(file, root), 'utf8'));

type LockEntry = { version?: string; engines?: unknown };

const nodeRangeOf = (entry: LockEntry): string | undefined => {
  const engines = entry.engines;
  if (engines === null || typeof engines !== 'object' || Array.isArray(engines)) return undefined;
  const node = (engines as Record<string, unknown>).node;
  return typeof node === 'string' ? node : undefined;
};

describe('dependencies admit the Node the project declares', () => {
  const declared: string = readJson('package.json').engines.node;
  const lock: { packages: Record<string, LockEntry> } = readJson('package-lock.json');

  it('declares a valid Node range that includes Node 20.20', () => {
    expect(semver.validRange(declared)).not.toBeNull();
    expect(semver.satisfies('20.20.0', declared)).toBe(true);
  });

  it('every locked package admits every Node version in that range', () => {
    const refusing = Object.entries(lock.packages)
      .filter(([location]) => location !== '')
      .flatMap(([location, entry]) => {
        const range = nodeRangeOf(entry);
        if (range === undefined) return [];
        const admits = semver.validRange(range) !== null && semver.subset(declared, range);
        return admits ? [] : [`${location}@${entry.version} needs node ${range}`];
      });
    expect(refusing).toEqual([]);
  });

  it('the lock file and package.json agree on the declared range', () => {
    expect(lock.packages['']).toMatchObject({ engines: { node: declared } });
  });
});
