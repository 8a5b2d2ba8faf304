import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, records } from '../../support/records.ts';
import { type TestService } from '../../support/service.ts';
import { startPair, stopPair } from '../../support/pair.ts';

/**
 * next-version puts of a data subject's records (each locks its record's key
 * `FOR SHARE` in its append's transaction; the group committer takes several appends in one
 * transaction) on both instances, while A erases the subject (`shredSubject` deletes all the
 * subject's data keys in one statement) and B runs retention. Nothing answers 5xx (a deadlock
 * aborted is a 500), and every put answered 200 is readable or its record removed.
 */
let a: TestService;
let b: TestService;
beforeAll(async () => ({ a, b } = await startPair({ person_memory: [{ agent: 'scribe', purpose: 'routine:r' }] })));
afterAll(() => stopPair({ a, b }));

describe('next-version puts racing an erasure and retention', () => {
  it('answer no 5xx, and a 200 is readable or removed', async () => {
    const failed: string[] = [];
    const lost: string[] = [];
    for (let round = 0; round < 4; round++) {
      const subject = `user:share${round}`;
      const keys = Array.from({ length: 24 }, (_, i) => `sh-${round}-${i}`);
      const onA = await caller(a, 'acme', { purpose: 'routine:r', data_subject: subject });
      const onB = await caller(b, 'acme', { purpose: 'routine:r', data_subject: subject });
      for (const key of keys) expect((await onA.rec({ op: 'put', scope: 'agent:scribe', record_key: key, body: { v: 1 }, expect: 0 })).status).toBe(200);
      // Both instances know every key (a read caches it).
      for (const key of keys) await onB.rec({ op: 'get', scope: 'agent:scribe', record_key: key });
      // One call per put (a call's requests are sequential), half on each instance.
      const writers = await Promise.all(keys.map((_, i) => caller(i % 2 ? a : b, 'acme', { purpose: 'routine:r', data_subject: subject })));
      const [erased, retention, ...puts] = await Promise.all([
        a.admin('POST', '/v1/tenants/acme/erasures', { data_subject: subject }),
        b.admin('POST', '/v1/tenants/acme/retention/run'),
        ...keys.map((key, i) => records(i % 2 ? a : b, writers[i]!.ticket, { op: 'put', scope: 'agent:scribe', record_key: key, body: { v: 2 }, expect: 1 })),
      ]);
      if (erased!.status >= 500) failed.push(`erasure ${erased!.status} ${JSON.stringify(erased!.body)}`);
      if (retention!.status >= 500) failed.push(`retention ${retention!.status} ${JSON.stringify(retention!.body)}`);
      failed.push(...puts.flatMap((r, i) => (r.status >= 500 ? [`put ${keys[i]} ${r.status} ${JSON.stringify(r.body)}`] : [])));
      const reader = await caller(b, 'acme', { purpose: 'routine:r', data_subject: subject });
      for (const [i, key] of keys.entries()) {
        if (puts[i]!.status !== 200) continue;
        const { rows } = await a.pool.query(`SELECT 1 FROM custodian_events WHERE type = 'RecordRemoved' AND data->>'key' = $1`, [key]);
        if (rows.length > 0) continue;
        const got = await reader.rec({ op: 'get', scope: 'agent:scribe', record_key: key });
        if (got.body.record?.body?.v !== 2) lost.push(`${key}: ${got.status} ${JSON.stringify(got.body)}`);
      }
    }
    expect.soft(failed).toEqual([]);
    expect(lost).toEqual([]);
  });
});
