import { randomUUID } from 'node:crypto';
import net from 'node:net';
import * as E from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresEventStore, type PostgresEventStore } from '../../../adapters/eventstore/postgres.ts';
import { createPool } from '../../../adapters/postgres/pool.ts';
import { freshDatabase } from '../../support/database.ts';
import { testEvent as ev } from '../../support/events.ts';

/**
 * A batch whose connection is lost after PostgreSQL committed it, before its COMMIT's answer
 * came back, may have committed: the group committer does not run its statements and units
 * again one by one (as it does after an error PostgreSQL answered, which rolled it back). Run
 * again, a request's count would be moved twice and a unit refused as its own duplicate.
 */

/** A TCP proxy to PostgreSQL that, when armed, drops the connection on which it sees COMMIT answered, instead of that answer. */
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
        if (armed && commandComplete && pending.toString('utf8', whole + 5, whole + 1 + length) === 'COMMIT\0') {
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
  await pool.query('CREATE TABLE t_counted (id text PRIMARY KEY, n int NOT NULL)');
});
afterAll(async () => {
  await store?.close();
  await pool?.end();
  await cutter?.close();
  await db?.drop();
});

describe('a batch whose COMMIT answer was lost', () => {
  it('is not run again: its statement counted once, its unit written once', async () => {
    const id = randomUUID();
    await pool.query('INSERT INTO t_counted (id, n) VALUES ($1, 0)', [id]);
    const s = `doubt:${randomUUID()}`;
    const e = ev();
    // The first append is taken into a batch of its own at once; the unit and the statement
    // queue behind it and share the next batch, the one whose COMMIT answer is cut.
    const lead = store.append(`lead:${randomUUID()}`, [ev()], 'no_stream');
    cutter.arm();
    const [unit, counted] = await Promise.allSettled([store.append(s, [e], 'any'), store.inBatch('UPDATE t_counted SET n = n + 1 WHERE id = $1', [id])]);
    expect(E.isRight(await lead)).toBe(true);
    const n = (await pool.query<{ n: number }>('SELECT n FROM t_counted WHERE id = $1', [id])).rows[0]!.n;
    const written = (await store.readStream(s)).length;
    expect({ n, written }).toEqual({ n: 1, written: 1 });
    // Neither caller is told its work failed for certain: an in-doubt batch answers with an error.
    expect(unit.status === 'rejected' || E.isRight(unit.value)).toBe(true);
    expect(counted.status).toBe('rejected');
  });
});
