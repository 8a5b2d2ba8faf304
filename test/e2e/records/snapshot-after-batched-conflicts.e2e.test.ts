import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, records, warm } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { startPair, stopPair } from '../../support/pair.ts';
import { snapshotWritesSettled } from '../../../queries/snapshot-write.ts';

/**
 * A scope's snapshot is taken of the state its appends left. Puts batched on one scope from two
 * instances (so chains conflict mid-way and states evolved in place are thrown away) carry the
 * scope past a snapshot; a third instance, loading the scope from that snapshot, must decide on
 * exactly what the log holds: a key never written is new to it, a written one is at its version,
 * and the cap counts what is there.
 */
let a: TestService;
let b: TestService;
let c: TestService | undefined;
beforeAll(async () => ({ a, b } = await startPair({ caps: { records: 700, bytes: 100_000_000 } })));
afterAll(async () => {
  await c?.stop();
  await stopPair({ a, b });
});

describe('a scope carried past its snapshot by batched puts on two instances', () => {
  it('is decided from its snapshot on a third instance exactly as the log has it', async () => {
    const scope = 'project:snap';
    const calls = [];
    for (let i = 0; i < 14; i++) {
      const k = await caller(a, 'acme', { input: 'snap' });
      await warm(a, k);
      await warm(b, k);
      calls.push(k);
    }
    // 840 puts, a third of them racing for shared keys (so chains meet conflicts and stale refusals).
    const sent = calls.flatMap((k, ci) =>
      Array.from({ length: 60 }, (_, j) => ({ k, key: j % 3 === 0 ? `s-${j % 30}` : `o-${ci}-${j}`, on: (ci + j) % 2 ? b : a })),
    );
    const answers = await Promise.all(sent.map((s, i) => records(s.on, s.k.ticket, { op: 'put', scope, record_key: s.key, body: { i }, expect: 0 })));
    expect(answers.filter((r) => r.status >= 500)).toEqual([]);
    const written = new Set(sent.filter((_, i) => answers[i]!.status === 200).map((s) => s.key));
    const { rows } = await a.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM custodian_events WHERE type = 'RecordVersionWritten' AND data->>'scope' = $1 AND data->>'tenant' = 'acme'`,
      [scope],
    );
    expect(rows[0]!.n).toBe(written.size);
    // Past a snapshot (one is taken every 500 events of a scope).
    expect(written.size).toBeGreaterThan(500);
    // The snapshot (its head; its parts are rows named `<stream>#…`) is written after the answer to the append that crossed 500 events.
    await snapshotWritesSettled();
    const snapshots = (await a.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM custodian_snapshots WHERE stream LIKE '%:project:snap'`)).rows[0]!.n;
    expect(snapshots).toBe(1);
    c = await startTestService({ shareWith: a });
    const onC = await caller(c, 'acme', { input: 'snap' });
    // A written key is at version 1; a new key is new (and the cap, 700, is not reached).
    const writtenKey = [...written][0]!;
    expect(await onC.rec({ op: 'put', scope, record_key: writtenKey, body: {}, expect: 0 })).toMatchObject({
      status: 409,
      body: { error: 'stale', current: 1 },
    });
    const shared = Array.from({ length: 30 }, (_, j) => `s-${j}`).filter((k) => !written.has(k));
    for (const key of [...shared, 'never-written'])
      expect(await onC.rec({ op: 'put', scope, record_key: key, body: {}, expect: 0 }), key).toMatchObject({ status: 200 });
    const listed = await onC.rec({ op: 'list', list: { scopes: [scope], limit: 200 } });
    expect(listed.status).toBe(200);
  }, 240_000);
});
