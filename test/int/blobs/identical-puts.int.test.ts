import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresBlobStore } from '../../../adapters/blobs/postgres.ts';
import { memoryKeystore } from '../../../adapters/keys/memory-keystore.ts';
import { createPool } from '../../../adapters/postgres/pool.ts';
import type { BlobStore } from '../../../domain/ports/blob-store.ts';
import { freshDatabase } from '../../support/database.ts';

/** The blob store takes the same file stored by many writers at once: one copy, no error. */
let db: Awaited<ReturnType<typeof freshDatabase>>;
let pools: ReturnType<typeof createPool>[];
let stores: BlobStore[];

beforeAll(async () => {
  db = await freshDatabase();
  // Several instances, as several service processes share one database.
  pools = [createPool(db.url), createPool(db.url), createPool(db.url)];
  // One keystore for all, as the service instances share theirs through the database.
  const keys = memoryKeystore();
  stores = [];
  for (const p of pools) stores.push(await postgresBlobStore(p, keys));
});
afterAll(async () => {
  for (const p of pools ?? []) await p.end();
  await db?.drop();
});

describe('identical blob puts at once', () => {
  it('50 puts of the same 3 MiB file into one tree: all resolve, one stored copy that opens whole', async () => {
    const bytes = randomBytes(3 << 20);
    const key = { tenant: 'acme', tree: 'root-1', sha256: createHash('sha256').update(bytes).digest('hex') };
    const results = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => stores[i % stores.length]!.put(key, bytes, null, 1000 + i)));
    expect(results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
    expect(results.filter((r) => r.status === 'fulfilled' && !r.value.renewed)).toHaveLength(1);
    const { rows } = await pools[0]!.query('SELECT count(*)::int AS n FROM custodian_blobs WHERE sha256 = $1', [key.sha256]);
    expect(rows[0].n).toBe(1);
    const chunks = await pools[0]!.query('SELECT count(*)::int AS n FROM custodian_blob_chunks WHERE sha256 = $1', [key.sha256]);
    expect(chunks.rows[0].n).toBe(3);
    const opened = await stores[1]!.open(key);
    const read: Uint8Array[] = [];
    for await (const c of opened!.chunks()) read.push(c);
    expect(Buffer.concat(read).equals(bytes)).toBe(true);
  });
});
