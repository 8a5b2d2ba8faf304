import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, records } from '../../support/records.ts';
import { type TestService } from '../../support/service.ts';
import { startPair, stopPair } from '../../support/pair.ts';

/**
 * Red-team pass over a new record's data key (issue 14) against an erasure racing a put: the
 * data subject's job puts new records on A while B erases the subject. A put answered 200 is
 * either erased with the rest (its record removed) or a write that outlived the erasure, and
 * then it must read back: never a live record whose key (or its subject's key) is gone.
 */
let a: TestService;
let b: TestService;
beforeAll(async () => ({ a, b } = await startPair({ person_memory: [{ agent: 'scribe', purpose: 'routine:r' }] })));
afterAll(() => stopPair({ a, b }));

/** Why a record's newest body cannot be opened: its key row, and its subject's key. */
const why = async (key: string) => {
  const { rows } = await a.pool.query<{ row: boolean; subject: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM custodian_data_keys d WHERE d.key_id::text = e.data->'body'->>'k') AS row,
            EXISTS (SELECT 1 FROM custodian_subject_keys s WHERE s.tenant = 'acme' AND 'subject:' || s.subject = (SELECT owner FROM custodian_data_keys d WHERE d.key_id::text = e.data->'body'->>'k')) AS subject
       FROM custodian_events e WHERE e.type = 'RecordVersionWritten' AND e.data->>'key' = $1 ORDER BY e.position DESC LIMIT 1`,
    [key],
  );
  return rows[0] ? `key row ${rows[0].row ? 'kept' : 'gone'}${rows[0].row ? `, subject key ${rows[0].subject ? 'kept' : 'gone'}` : ''}` : 'no version';
};

describe('puts of a data subject’s job on A while B erases the subject', () => {
  it('every record answered 200 and not removed reads back, on both instances alike, and nothing answers 500', async () => {
    const lost: string[] = [];
    const failed: string[] = [];
    const disagree: string[] = [];
    for (let round = 0; round < 8; round++) {
      const subject = `user:race${round}`;
      const c = await caller(a, 'acme', { purpose: 'routine:r', data_subject: subject });
      expect((await c.rec({ op: 'put', scope: 'agent:scribe', record_key: `seed-${round}`, body: {}, expect: 0 })).status).toBe(200);
      const keys = Array.from({ length: 6 }, (_, i) => `er-${round}-${i}`);
      const [erased, ...puts] = await Promise.all([
        b.admin('POST', '/v1/tenants/acme/erasures', { data_subject: subject }),
        ...keys.map((key, i) => records(a, c.ticket, { op: 'put', scope: 'agent:scribe', record_key: key, body: { i }, expect: 0 })),
      ]);
      expect(erased!.status).toBeLessThan(300);
      failed.push(...puts.flatMap((r, i) => (r.status >= 500 ? [`put ${keys[i]} ${r.status}`] : [])));
      const written = keys.filter((_, i) => puts[i]!.status === 200);
      const { rows: removed } = await a.pool.query<{ key: string }>(
        `SELECT data->>'key' AS key FROM custodian_events WHERE type = 'RecordRemoved' AND data->>'key' = ANY($1::text[])`,
        [written],
      );
      const live = written.filter((k) => !removed.some((r) => r.key === k));
      const readers = await Promise.all([a, b].map((svc) => caller(svc, 'acme', { purpose: 'routine:r', data_subject: subject })));
      for (const key of live) {
        const [onA, onB] = await Promise.all(readers.map((r) => r.rec({ op: 'get', scope: 'agent:scribe', record_key: key })));
        for (const [name, got] of [
          ['A', onA!],
          ['B', onB!],
        ] as const) {
          if (got.status >= 500) failed.push(`get on ${name} ${key} ${got.status}: ${await why(key)}`);
          else if (got.body.record?.body?.i !== keys.indexOf(key)) lost.push(`${name} ${key}: ${await why(key)}`);
        }
        if (JSON.stringify(onA!.body.record ?? null) !== JSON.stringify(onB!.body.record ?? null)) disagree.push(key);
        // The subject's next job writes the record on: never a 500 (a key row it cannot unwrap, or cannot replace).
        const next = await readers[1]!.rec({ op: 'put', scope: 'agent:scribe', record_key: key, body: { next: true }, expect: 1 });
        if (next.status >= 500) failed.push(`next put on B ${key} ${next.status}: ${await why(key)}`);
      }
    }
    expect.soft(failed).toEqual([]);
    expect.soft(disagree).toEqual([]);
    expect(lost).toEqual([]);
  });
});
