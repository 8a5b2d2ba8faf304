import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * Red-team pass over a new record's data key (issue 14) against retirement: a person record
 * past its end, written again on B (whose put retires it: RecordRemoved, its keys shredded),
 * then written on by A, which wrote the old record and still holds its key. Every body the
 * log holds after the retirement must name a key row that exists.
 */
const DAY = 86_400_000;
let a: TestService;
let b: TestService;
beforeAll(async () => {
  a = await startTestService({ testClock: true });
  b = await startTestService({ testClock: true, shareWith: a });
  await a.admin('POST', '/v1/tenants', { id: 'acme', settings: { retention_days: 10, person_memory: [{ agent: 'scribe', purpose: 'routine:keep' }] } });
  await a.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] });
});
afterAll(async () => {
  await b?.stop();
  await a?.stop();
});

const now = async (svc: TestService) => (await svc.admin('POST', '/v1/_clock', { advance_ms: 0 })).body.now_ms as number;
const advance = async (ms: number) => {
  for (const svc of [a, b]) expect((await svc.admin('POST', '/v1/_clock', { advance_ms: ms })).status).toBe(200);
};

describe('a person record retired by a put on B, then written on by A', () => {
  it('A’s new version is sealed under a key row that exists and reads back on B', async () => {
    const job = { purpose: 'routine:keep', start: { timeout_ms: 300 * DAY } };
    const onA = await caller(a, 'acme', job);
    expect(
      await onA.rec({
        op: 'put',
        scope: 'agent:scribe',
        record_key: 'pref',
        body: { likes: 'tea' },
        expect: 0,
        subject_kind: 'person',
        ends_at: (await now(a)) + DAY,
      }),
    ).toMatchObject({ status: 200, body: { version: 1 } });
    await advance(DAY + 1);
    const onB = await caller(b, 'acme', job);
    expect(await onB.rec({ op: 'put', scope: 'agent:scribe', record_key: 'pref', body: { likes: 'water' }, expect: 0, subject_kind: 'person' })).toMatchObject({
      status: 200,
      body: { version: 1 },
    });
    const retired = (await a.pool.query<{ p: string }>(`SELECT max(position) AS p FROM custodian_events WHERE type = 'RecordRemoved'`)).rows[0]!.p;
    expect(retired).not.toBeNull();
    const again = await caller(a, 'acme', job);
    expect(
      await again.rec({ op: 'put', scope: 'agent:scribe', record_key: 'pref', body: { likes: 'coffee' }, expect: 1, subject_kind: 'person' }),
    ).toMatchObject({
      status: 200,
      body: { version: 2 },
    });
    const { rows: unreadable } = await a.pool.query<{ version: string }>(
      `SELECT e.data->>'version' AS version FROM custodian_events e
        WHERE e.type = 'RecordVersionWritten' AND e.data->>'key' = 'pref' AND e.position > $1
          AND NOT EXISTS (SELECT 1 FROM custodian_data_keys d WHERE d.key_id::text = e.data->'body'->>'k')`,
      [retired],
    );
    expect.soft(unreadable.map((r) => Number(r.version))).toEqual([]);
    const reader = await caller(b, 'acme', job);
    const history = (await reader.rec({ op: 'history', scope: 'agent:scribe', record_key: 'pref' })).body.records;
    // History answers newest first.
    expect(history.map((x: { version: number; body: unknown }) => [x.version, x.body])).toEqual([
      [2, { likes: 'coffee' }],
      [1, { likes: 'water' }],
    ]);
  });
});
