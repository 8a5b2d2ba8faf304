import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, warm, type Caller } from '../../support/records.ts';
import { type TestService } from '../../support/service.ts';
import { startPair, stopPair } from '../../support/pair.ts';

/**
 * Red-team pass over a new record's data key (issue 14): two puts of the same new record at
 * once, from one instance and from two, cold and warm, by jobs whose keys have the same owner
 * (the tenant) or different ones (a data subject's job makes a subject-owned key). Exactly one
 * writes; the record then has exactly the key row its body names (the refused put left none),
 * and the body reads back on both instances.
 */
let a: TestService;
let b: TestService;
beforeAll(async () => ({ a, b } = await startPair({ person_memory: [{ agent: 'scribe', purpose: 'routine:r' }] })));
afterAll(() => stopPair({ a, b }));

const keyRowsOf = async (key: string) =>
  (
    await a.pool.query<{ key_id: string; owner: string }>(
      `SELECT key_id::text, owner FROM custodian_data_keys WHERE tenant = 'acme' AND scope = 'agent:scribe' AND record_key = $1 ORDER BY owner`,
      [key],
    )
  ).rows;
const bodyKeysOf = async (key: string) =>
  (
    await a.pool.query<{ k: string }>(
      `SELECT data->'body'->>'k' AS k FROM custodian_events WHERE type = 'RecordVersionWritten' AND data->>'scope' = 'agent:scribe' AND data->>'key' = $1`,
      [key],
    )
  ).rows.map((r) => r.k);

type Variant = { name: string; two: boolean; warmed: boolean; subjects: [string | null, string | null] };
const variants: Variant[] = [
  { name: 'one instance, cold, tenant keys', two: false, warmed: false, subjects: [null, null] },
  { name: 'two instances, cold, tenant keys', two: true, warmed: false, subjects: [null, null] },
  { name: 'two instances, warm, tenant keys', two: true, warmed: true, subjects: [null, null] },
  { name: 'two instances, warm, a tenant key against a subject key', two: true, warmed: true, subjects: [null, 'user:x'] },
  { name: 'two instances, cold, two subjects', two: true, warmed: false, subjects: ['user:y', 'user:z'] },
  { name: 'one instance, warm, the same subject', two: false, warmed: true, subjects: ['user:w', 'user:w'] },
];

let round = 0;
describe.each(variants)('two puts of one new record at once: $name', ({ two, warmed, subjects }) => {
  it('writes once; the body names the record’s only key row, which reads back on both instances', async () => {
    for (let i = 0; i < 6; i++) {
      const key = `race-${++round}`;
      const svcs = [a, two ? b : a] as const;
      const callers: Caller[] = [];
      for (const [j, svc] of svcs.entries()) {
        const subject = subjects[j];
        const c = await caller(svc, 'acme', { purpose: 'routine:r', ...(subject ? { data_subject: subject } : {}) });
        if (warmed) await warm(svc, c);
        callers.push(c);
      }
      const answers = await Promise.all(
        callers.map((c, j) => c.rec({ op: 'put', scope: 'agent:scribe', record_key: key, body: { j }, expect: 0, subject_kind: 'person' })),
      );
      expect(answers.filter((r) => r.status >= 500)).toEqual([]);
      const won = answers.flatMap((r, j) => (r.status === 200 ? [j] : []));
      expect(won).toHaveLength(1);
      expect(answers.find((r) => r.status !== 200)?.body.error).toBe('stale');
      const rows = await keyRowsOf(key);
      expect(rows.map((r) => r.key_id)).toEqual(await bodyKeysOf(key));
      for (const svc of [a, b]) {
        const reader = await caller(svc, 'acme', { purpose: 'routine:r', ...(subjects[won[0]!] ? { data_subject: subjects[won[0]!]! } : {}) });
        expect(await reader.rec({ op: 'get', scope: 'agent:scribe', record_key: key })).toMatchObject({
          status: 200,
          body: { record: { body: { j: won[0] } } },
        });
      }
    }
  });
});
