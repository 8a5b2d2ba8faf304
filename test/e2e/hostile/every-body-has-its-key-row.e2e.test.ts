import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, warm } from '../../support/records.ts';
import { type TestService } from '../../support/service.ts';
import { startPair, stopPair } from '../../support/pair.ts';

/**
 * Red-team pass over "a new record's data key commits with its put's append" (issue 14): every
 * body the log holds must name a key row that exists (else the version is silently unreadable),
 * and a refused put writes no key row of any kind.
 */
let a: TestService;
let b: TestService;
beforeAll(async () => ({ a, b } = await startPair({ person_memory: [{ agent: 'scribe', purpose: 'routine:r' }] })));
afterAll(() => stopPair({ a, b }));

/** The versions written after `after` whose bodies name a key id with no key row (unreadable everywhere). */
const bodiesWithoutKey = async (scope: string, key: string, after = 0) =>
  (
    await a.pool.query<{ version: string; k: string }>(
      `SELECT e.data->>'version' AS version, e.data->'body'->>'k' AS k FROM custodian_events e
        WHERE e.type = 'RecordVersionWritten' AND e.data->>'scope' = $1 AND e.data->>'key' = $2 AND e.position > $3
          AND NOT EXISTS (SELECT 1 FROM custodian_data_keys d WHERE d.key_id::text = e.data->'body'->>'k')
        ORDER BY e.position`,
      [scope, key, after],
    )
  ).rows;

let n = 0;

describe('a record erased on B and written again on A, where A wrote it before', () => {
  it('the new version’s body names a key row that exists and reads back on B', async () => {
    const subject = `user:e${++n}`;
    const key = `pref-${n}`;
    const first = await caller(a, 'acme', { purpose: 'routine:r', data_subject: subject });
    const seed = await first.rec({ op: 'put', scope: 'agent:scribe', record_key: key, body: { t: 1 }, expect: 0, subject_kind: 'person' });
    expect(seed.status).toBe(200);
    expect((await b.admin('POST', '/v1/tenants/acme/erasures', { data_subject: subject })).status).toBeLessThan(300);
    const erased = await a.lastPosition();
    // A new job for the same person writes the record again on A, whose key cache still names the shredded key.
    const again = await caller(a, 'acme', { purpose: 'routine:r', data_subject: subject });
    const put = await again.rec({ op: 'put', scope: 'agent:scribe', record_key: key, body: { t: 2 }, expect: 0, subject_kind: 'person' });
    expect(put).toMatchObject({ status: 200, body: { version: 1 } });
    expect.soft(await bodiesWithoutKey('agent:scribe', key, erased)).toEqual([]);
    const onB = await caller(b, 'acme', { purpose: 'routine:r', data_subject: subject });
    expect(await onB.rec({ op: 'get', scope: 'agent:scribe', record_key: key })).toMatchObject({ status: 200, body: { record: { body: { t: 2 } } } });
  });
});

const subjectKeys = async (subject: string) =>
  Number(
    (await a.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM custodian_subject_keys WHERE tenant = 'acme' AND subject = $1`, [subject])).rows[0]!.n,
  );
const dataKeys = async (scope: string) =>
  Number((await a.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM custodian_data_keys WHERE tenant = 'acme' AND scope = $1`, [scope])).rows[0]!.n);

describe('a refused put of a data subject’s job, the subject new to the keystore', () => {
  it.each([false, true])('writes no key row of any kind, data or subject (warm: %s)', async (warmed) => {
    const subject = `user:r${++n}`;
    const c = await caller(a, 'acme', { purpose: 'routine:r', data_subject: subject });
    if (warmed) await warm(a, c);
    const before = { subject: await subjectKeys(subject), data: await dataKeys('agent:scribe'), position: await a.lastPosition() };
    const refused = await c.rec({ op: 'put', scope: 'agent:scribe', record_key: `refused-${n}`, body: { t: 1 }, expect: 3, subject_kind: 'person' });
    expect(refused).toMatchObject({ status: 409, body: { error: 'stale' } });
    expect({ subject: await subjectKeys(subject), data: await dataKeys('agent:scribe'), position: await a.lastPosition() }).toEqual(before);
  });
});
