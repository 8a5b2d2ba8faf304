import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, records } from '../../support/records.ts';
import { type TestService } from '../../support/service.ts';
import { startPair, stopPair } from '../../support/pair.ts';

/**
 * a data subject's first key is written with the append that first needs it
 * (`SUBJECT_KEYS_INSERT`), and a subject-wrapped data key only while that key stands
 * (`DATA_KEYS_INSERT_CHECKED`). Many first puts of a brand-new subject at once, on both
 * instances (the group committer batches them, each with its own fresh subject key): every
 * put answers 200 (never 5xx after its retries), reads back on both instances, and exactly one
 * subject key row stands.
 */
let a: TestService;
let b: TestService;
beforeAll(async () => ({ a, b } = await startPair({ person_memory: [{ agent: 'scribe', purpose: 'routine:r' }] })));
afterAll(() => stopPair({ a, b }));

describe('first puts of a new data subject, all at once on two instances', () => {
  it('all answer 200 and read back', async () => {
    for (let round = 0; round < 4; round++) {
      const subject = `user:first${round}`;
      const keys = Array.from({ length: 16 }, (_, i) => `fs-${round}-${i}`);
      const writers = await Promise.all(keys.map((_, i) => caller(i % 2 ? a : b, 'acme', { purpose: 'routine:r', data_subject: subject })));
      const puts = await Promise.all(
        keys.map((key, i) => records(i % 2 ? a : b, writers[i]!.ticket, { op: 'put', scope: 'agent:scribe', record_key: key, body: { i }, expect: 0 })),
      );
      expect(
        puts.map((p) => p.status),
        JSON.stringify(puts.filter((p) => p.status !== 200).map((p) => p.body)),
      ).toEqual(keys.map(() => 200));
      const { rows } = await a.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM custodian_subject_keys WHERE tenant = 'acme' AND subject = $1`, [
        subject,
      ]);
      expect(rows[0]!.n).toBe(1);
      for (const svc of [a, b]) {
        const reader = await caller(svc, 'acme', { purpose: 'routine:r', data_subject: subject });
        for (const [i, key] of keys.entries()) {
          const got = await reader.rec({ op: 'get', scope: 'agent:scribe', record_key: key });
          expect(got.body.record?.body?.i, `${key} on ${svc === a ? 'A' : 'B'}: ${JSON.stringify(got.body)}`).toBe(i);
        }
      }
    }
  });
});
