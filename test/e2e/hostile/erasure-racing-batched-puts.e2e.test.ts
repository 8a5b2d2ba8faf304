import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, records, warm } from '../../support/records.ts';
import { type TestService } from '../../support/service.ts';
import { startPair, stopPair } from '../../support/pair.ts';

/**
 * An erasure racing puts that are decided together: the subject's job puts many new records
 * into one scope from warm tickets on A and B (so they are queued, decided in order and
 * appended as chains, their guards and new key rows with them) while B erases the subject.
 * Every put answered 200 is either removed by the erasure or reads back on both instances;
 * a receipt that says complete leaves no live record of the subject written before the erasure was requested; nothing answers 500.
 */
let a: TestService;
let b: TestService;
beforeAll(async () => ({ a, b } = await startPair({ person_memory: [{ agent: 'scribe', purpose: 'routine:r' }] })));
afterAll(() => stopPair({ a, b }));

describe('batched puts of a data subject’s job on A and B while B erases the subject', () => {
  it('answers every put 200 only for a record that is removed or reads back, and a complete receipt leaves none of theirs written before it live', async () => {
    const failed: string[] = [];
    const lost: string[] = [];
    const leftLive: string[] = [];
    let raced = 0;
    for (let round = 0; round < 4; round++) {
      const subject = `user:batch${round}`;
      const c = await caller(a, 'acme', { purpose: 'routine:r', data_subject: subject });
      await warm(a, c);
      await warm(b, c);
      expect((await c.rec({ op: 'put', scope: 'agent:scribe', record_key: `seed-${round}`, body: {}, expect: 0 })).status).toBe(200);
      const keys = Array.from({ length: 40 }, (_, i) => `eb-${round}-${i}`);
      const [erased, ...puts] = await Promise.all([
        (async () => {
          await new Promise((r) => setTimeout(r, round * 3));
          return b.admin('POST', '/v1/tenants/acme/erasures', { data_subject: subject });
        })(),
        ...keys.map((key, i) => records(i % 2 ? b : a, c.ticket, { op: 'put', scope: 'agent:scribe', record_key: key, body: { i }, expect: 0 })),
      ]);
      expect(erased!.status).toBeLessThan(300);
      failed.push(...puts.flatMap((r, i) => (r.status >= 500 ? [`put ${keys[i]} ${r.status} ${JSON.stringify(r.body)}`] : [])));
      const written = keys.filter((_, i) => puts[i]!.status === 200);
      const { rows: removed } = await a.pool.query<{ key: string }>(
        `SELECT data->>'key' AS key FROM custodian_events WHERE type = 'RecordRemoved' AND data->>'key' = ANY($1::text[])`,
        [written],
      );
      raced += removed.length;
      const live = written.filter((k) => !removed.some((r) => r.key === k));
      // A put that took its position before the erasure was requested is one the erasure must find: removed, or held (then incomplete).
      const complete = erased!.body.receipt?.complete ?? erased!.body.complete;
      const { rows: before } = await a.pool.query<{ key: string }>(
        `SELECT e.data->>'key' AS key FROM custodian_events e
          WHERE e.type = 'RecordVersionWritten' AND e.data->>'key' = ANY($1::text[])
            AND e.position < (SELECT min(r.position) FROM custodian_events r WHERE r.type = 'ErasureRequested' AND r.data->>'data_subject' = $2)`,
        [live, subject],
      );
      if (complete === true) leftLive.push(...before.map((r) => `${subject} ${r.key}`));
      const readers = await Promise.all([a, b].map((svc) => caller(svc, 'acme', { purpose: 'routine:r', data_subject: subject })));
      let used = 0;
      for (const key of live) {
        if (++used > 60) break;
        const [onA, onB] = await Promise.all(readers.map((r) => r.rec({ op: 'get', scope: 'agent:scribe', record_key: key })));
        for (const [name, got] of [
          ['A', onA!],
          ['B', onB!],
        ] as const) {
          if (got.status >= 500) failed.push(`get on ${name} ${key} ${got.status}`);
          else if (got.body.record?.body?.i !== keys.indexOf(key)) lost.push(`${name} ${key}: ${JSON.stringify(got.body)}`);
        }
      }
    }
    // The erasure met puts of its subject in flight (some removed), so the race was run.
    expect(raced).toBeGreaterThan(0);
    expect.soft(failed).toEqual([]);
    expect.soft(leftLive).toEqual([]);
    expect(lost).toEqual([]);
  }, 180_000);
});
