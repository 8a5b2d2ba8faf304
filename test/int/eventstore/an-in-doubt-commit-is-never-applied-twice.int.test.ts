import { randomUUID } from 'node:crypto';
import net from 'node:net';
import * as E from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresEventStore, type PostgresEventStore } from '../../../adapters/eventstore/postgres.ts';
import { CommitInDoubt } from '../../../adapters/eventstore/postgres-group-commit.ts';
import { createPool } from '../../../adapters/postgres/pool.ts';
import { freshDatabase } from '../../support/database.ts';
import { testEvent as ev } from '../../support/events.ts';

/**
 * A batch whose connection is lost after PostgreSQL committed its statement, before the answer
 * came back, may have committed: the group committer does not run its units again one by one
 * (as it does after an error PostgreSQL answered, which rolled it back). Run again, an append
 * at any revision would be written twice.
 */

/** A TCP proxy to PostgreSQL that, when armed, drops the connection on which it sees a SELECT answered, instead of that answer. */
const commitCutter = async (target: URL) => {
  let armed = false;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('data', (d) => upstream.write(d));
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
    let pending = Buffer.alloc(0);
    upstream.on('data', (d) => {
      pending = Buffer.concat([pending, d]);
      let whole = 0;
      // Backend messages: a type byte, then a length that counts itself.
      while (pending.length - whole >= 5) {
        const length = pending.readInt32BE(whole + 1);
        if (pending.length - whole < 1 + length) break;
        const commandComplete = pending[whole] === 0x43;
        if (armed && commandComplete && pending.toString('utf8', whole + 5, whole + 1 + length).startsWith('SELECT ')) {
          armed = false;
          client.write(pending.subarray(0, whole));
          close();
          return;
        }
        whole += 1 + length;
      }
      client.write(pending.subarray(0, whole));
      pending = pending.subarray(whole);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as net.AddressInfo).port);
  return {
    url: url.toString(),
    arm: () => (armed = true),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
};

let db: Awaited<ReturnType<typeof freshDatabase>>;
let cutter: Awaited<ReturnType<typeof commitCutter>>;
let pool: pg.Pool;
let store: PostgresEventStore;

beforeAll(async () => {
  db = await freshDatabase();
  cutter = await commitCutter(new URL(db.url));
  pool = createPool(cutter.url, 4);
  store = await postgresEventStore(pool, {});
});
afterAll(async () => {
  await store?.close();
  await pool?.end();
  await cutter?.close();
  await db?.drop();
});

describe("a batch whose statement's answer was lost", () => {
  it('is not run again: its unit is written once, and its caller is told the batch is in doubt', async () => {
    const s = `doubt:${randomUUID()}`;
    expect(E.isRight(await store.append(`lead:${randomUUID()}`, [ev()], 'no_stream'))).toBe(true);
    cutter.arm();
    const [unit] = await Promise.allSettled([store.append(s, [ev()], 'any')]);
    expect((await store.readStream(s)).length).toBe(1);
    expect(unit.status === 'rejected' && unit.reason instanceof CommitInDoubt).toBe(true);
  });
});
