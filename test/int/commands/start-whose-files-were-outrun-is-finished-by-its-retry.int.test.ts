import { randomBytes } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../adapters/clock/system.ts';
import { memoryEventStore } from '../../../adapters/eventstore/memory.ts';
import { envelopeMacs } from '../../../adapters/keys/envelope-keys.ts';
import { fileCommands } from '../../../commands/files.ts';
import { jobCommands } from '../../../commands/jobs.ts';
import { tenantCommands } from '../../../commands/tenants.ts';
import type { BlobStore } from '../../../domain/ports/blob-store.ts';
import type { EventStore } from '../../../domain/ports/event-store.ts';

/**
 * An admin start that names files is two commands: the job's start, then the files handed to
 * its tree (`FilesHanded` on the tree's files stream). When other writers keep moving the tree's
 * files stream for the whole bound (siblings of a child job storing files on other instances),
 * the handing is answered `unavailable` — "retry the same request" — after the start committed.
 * The retry must then hand the files: before, a repeat of a running start decided nothing and
 * handed nothing, so the retry answered 200 for a job that can never read the files it was
 * started with.
 */
const ok = <T>(e: E.Either<unknown, T>): T => {
  if (E.isLeft(e)) throw new Error(JSON.stringify(e.left));
  return e.right;
};

/** Blobs held in memory, by tenant, tree and digest. */
const memoryBlobs = (): BlobStore => {
  const held = new Map<string, { tenant: string; tree: string; sha256: string; bytes: Uint8Array; data_subject: string | null; stored_ms: number }>();
  const id = (k: { tenant: string; tree: string; sha256: string }) => `${k.tenant}|${k.tree}|${k.sha256}`;
  return {
    put: async (k, bytes, data_subject, now) => {
      const renewed = held.has(id(k));
      held.set(id(k), { ...k, bytes, data_subject, stored_ms: now });
      return { size: bytes.length, renewed };
    },
    open: async (k) => {
      const b = held.get(id(k));
      return b
        ? {
            size: b.bytes.length,
            async *chunks() {
              yield b.bytes;
            },
          }
        : null;
    },
    holds: async (tenant, tree) => [...held.values()].some((b) => b.tenant === tenant && b.tree === tree),
    holders: async (tenant, sha256) =>
      [...held.values()].filter((b) => b.tenant === tenant && b.sha256 === sha256).map((b) => ({ tree: b.tree, data_subject: b.data_subject })),
    list: async (tenant) => [...held.values()].filter((b) => b.tenant === tenant),
    remove: async (k) => held.delete(id(k)),
  };
};

/** A store where, while `jammed`, another writer's append to a files stream always lands first. */
const outrunOnFiles = (inner: EventStore) => {
  const jam = { on: false, lost: 0 };
  const store: EventStore = {
    ...inner,
    append: async (stream, events, expected, options) => {
      if (jam.on && stream.startsWith('files:')) {
        jam.lost++;
        return E.left({ kind: 'wrong_expected_revision', stream, expected, actual: typeof expected === 'number' ? expected + 1 : 0 });
      }
      return inner.append(stream, events, expected, options);
    },
  };
  return { store, jam };
};

describe('an admin start whose files could not be handed (other writers kept moving the tree)', () => {
  it('is answered unavailable, and the same start sent again hands the files to the job it started', async () => {
    const { store, jam } = outrunOnFiles(memoryEventStore());
    ok(await tenantCommands(store, systemClock).create('acme', {}));
    ok(await tenantCommands(store, systemClock).installPlugin('acme', { name: 'notes', functions: ['save'], agents: ['scribe'] }));
    const blobs = memoryBlobs();
    const sha256 = 'ab'.repeat(32);
    await blobs.put({ tenant: 'acme', tree: 'storer', sha256 }, randomBytes(64), null, Date.now());
    const files = fileCommands({ store, blobs, clock: systemClock });
    const jobs = jobCommands(store, systemClock, envelopeMacs(randomBytes(32)), undefined, files.holds, files);
    const request = { agent: 'scribe', plugin: 'notes', subject: 's', input: 'fix', files: [`oz0-file:sha256:${sha256}`] };

    jam.on = true;
    const first = await jobs.start('acme', 'fixer', request);
    jam.on = false;
    expect(jam.lost).toBeGreaterThan(1);
    expect(E.isLeft(first) && first.left.error).toBe('unavailable');
    expect(E.isLeft(first) && String(first.left.reason)).toMatch(/the job was started.*retry the same start/);

    const again = await jobs.start('acme', 'fixer', request);
    expect(E.isRight(again)).toBe(true);
    const handed = (await store.readStream('files:acme:fixer')).filter((r) => r.type === 'FilesHanded');
    expect(handed).toHaveLength(1);
    expect(handed[0]!.data).toMatchObject({ job: 'fixer', files: [{ sha256, from_tree: 'storer' }] });
    // A third time hands nothing more: the files are the job's already.
    ok(await jobs.start('acme', 'fixer', request));
    expect((await store.readStream('files:acme:fixer')).filter((r) => r.type === 'FilesHanded')).toHaveLength(1);
  }, 60_000);
});
