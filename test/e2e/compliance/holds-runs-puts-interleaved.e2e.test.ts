import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * Holds, runs and puts never race: random interleavings of puts, legal holds, releases,
 * erasures and retention runs on two instances of one database, each run in a world of its
 * own (its own tenant, subjects and scopes), checked after every run:
 * - no record a hold selects is removed after the hold was answered (until it is released);
 * - every put answered 200 is readable afterwards, or its record was removed after it;
 * - an erasure that says `complete: true` left nothing of its subject live that was written
 *   before it was asked for (what is left was written while or after it ran, and is readable).
 */
const DAY = 86_400_000;
const RUNS = Number(process.env.CUSTODIAN_INTERLEAVING_RUNS ?? 200);
const SCOPES = ['project:a', 'project:b', 'project:c'];
let a: TestService;
let b: TestService;
let world = 0;

/**
 * World w's tenant. A tenant of its own per world, not one for all of them: holds a run leaves
 * in place and erasures they defer stay in their tenant for good, so in a shared tenant every
 * later release resumed, and every retention run judged again, the leftovers of all earlier
 * worlds — work that grew with each run and that no check of a later run looks at.
 */
const tenantOf = (w: number) => `acme${w}`;
const createTenant = async (w: number) => {
  const t = tenantOf(w);
  const created = await a.admin('POST', '/v1/tenants', {
    id: t,
    settings: {
      retention_days: 1,
      person_memory: [{ agent: 'scribe', purpose: 'routine:r' }],
      person_shared_scopes: SCOPES.map((s) => `${s}${w}`),
    },
  });
  if (created.status !== 201) throw new Error(`tenant ${t}: ${created.status} ${JSON.stringify(created.body)}`);
  const installed = await a.admin('POST', `/v1/tenants/${t}/plugins`, { name: 'notes', functions: ['save'], agents: ['scribe'] });
  if (installed.status !== 201) throw new Error(`plugin of ${t}: ${installed.status} ${JSON.stringify(installed.body)}`);
};
/** The worlds' tenants made up front, a few at a time; a world past them (fast-check shrinking) makes its own. */
const ready = new Set<number>();
const tenantFor = async (w: number) => {
  if (!ready.has(w)) {
    await createTenant(w);
    ready.add(w);
  }
  return tenantOf(w);
};

beforeAll(async () => {
  a = await startTestService({ testClock: true });
  b = await startTestService({ shareWith: a, testClock: true });
  let next = 0;
  const maker = async (): Promise<void> => {
    const w = next++;
    if (w >= RUNS) return;
    await tenantFor(w);
    return maker();
  };
  await Promise.all(Array.from({ length: 4 }, maker));
}, 300_000);
afterAll(async () => {
  await b?.stop();
  await a?.stop();
});

type Op =
  | { kind: 'put'; on: 0 | 1; subject: 0 | 1; scope: number; key: number; person: boolean }
  | { kind: 'hold'; on: 0 | 1; by: 'scope' | 'subject'; target: number }
  | { kind: 'erase'; on: 0 | 1; subject: 0 | 1 }
  | { kind: 'retention'; on: 0 | 1 };

const on = fc.constantFrom<0 | 1>(0, 1);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('put' as const), on, subject: on, scope: fc.nat(2), key: fc.nat(3), person: fc.boolean() }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('hold' as const), on, by: fc.constantFrom<'scope' | 'subject'>('scope', 'subject'), target: fc.nat(2) }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('erase' as const), on, subject: on }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('retention' as const), on }) },
);
const step = fc.record({ op: opArb, delay: fc.nat(4) });

interface Answer {
  op: Op;
  status: number;
  body: any;
  key?: string;
  scope?: string;
}

/**
 * Events of `type` matching `where`, at positions after `after`: a run passes the log's last
 * position before it began, so only its own part of the log is read (every event of its world
 * is appended after that, at a higher position) — not all the earlier worlds' too, again.
 */
const positionsOf = async (after: number, type: string, where: string, params: unknown[]) =>
  (
    await a.pool.query<{ p: string; data: any }>(
      `SELECT position::text AS p, data FROM custodian_events WHERE position > $2 AND type = $1 AND ${where} ORDER BY position`,
      [type, after, ...params],
    )
  ).rows.map((r) => ({ position: Number(r.p), data: r.data }));

describe('holds, runs and puts on two instances, interleaved at random', () => {
  it(`never remove a held record, lose an acknowledged put, or call an erasure complete too early (${RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 2, maxLength: 4 }),
        fc.array(step, { minLength: 3, maxLength: 9 }),
        fc.boolean(),
        async (seed, racing, release) => {
          const w = world++;
          const tenant = await tenantFor(w);
          const from = await a.lastPosition();
          const svc = [a, b];
          const subjects = [`user:w${w}s0`, `user:w${w}s1`];
          const scopes = SCOPES.map((s) => `${s}${w}`);
          const now = (await a.admin('POST', '/v1/_clock', { advance_ms: 0 })).body.now_ms as number;
          const callers = await Promise.all(
            [0, 1].flatMap((i) =>
              subjects.map((data_subject) => caller(svc[i]!, tenant, { purpose: 'routine:r', data_subject, start: { timeout_ms: 365 * DAY } })),
            ),
          );
          const writer = (instance: 0 | 1, subject: 0 | 1) => callers[instance * 2 + subject]!;
          const versions = new Map<string, number>();
          const run = async (o: Op): Promise<Answer> => {
            const admin = svc[o.on]!.admin;
            switch (o.kind) {
              case 'put': {
                const scope = scopes[o.scope]!;
                const key = `k${o.key}`;
                const id = `${scope}#${key}`;
                const expect = versions.get(id) ?? 0;
                // A person record that ends in an hour: retention removes it once the clock moved past.
                const r = await writer(o.on, o.subject).rec({
                  op: 'put',
                  scope,
                  record_key: key,
                  body: { w, subject: o.subject },
                  expect,
                  ...(o.person ? { subject_kind: 'person', ends_at: now + 3_600_000 } : {}),
                });
                if (r.status === 200) versions.set(id, r.body.version);
                if (r.status === 409 && r.body.error === 'stale') versions.set(id, r.body.current);
                return { op: o, ...r, key, scope };
              }
              case 'hold': {
                const selector = o.by === 'scope' ? { scope: scopes[o.target]! } : { data_subject: subjects[o.target % 2]! };
                return { op: o, ...(await admin('POST', `/v1/tenants/${tenant}/holds`, { selector, reason: 'litigation' })) };
              }
              case 'erase':
                return { op: o, ...(await admin('POST', `/v1/tenants/${tenant}/erasures`, { data_subject: subjects[o.subject]! })) };
              case 'retention':
                return { op: o, ...(await admin('POST', `/v1/tenants/${tenant}/retention/run`)) };
            }
          };
          const answers: Answer[] = [];
          for (const s of seed) if (s.op.kind === 'put') answers.push(await run(s.op));
          // Person records written so far are past their end from here on: retention may take them.
          for (const x of svc) await x.admin('POST', '/v1/_clock', { advance_ms: 2 * 3_600_000 });
          const raced = await Promise.all(racing.map(async (s) => (await new Promise((r) => setTimeout(r, s.delay)), run(s.op))));
          answers.push(...raced);
          // No 5xx but the documented 503: the change is in the log, the read models had not
          // caught up within the wait (a loaded machine does that). Such a hold is in force all
          // the same, so the holds checked are every hold of this world the log has, not only
          // those answered 201.
          const recordedOnly = (r: Answer) => r.status === 503 && r.body?.error === 'unavailable' && typeof r.body.position === 'number';
          for (const r of answers) if (!recordedOnly(r)) expect(r.status, `${JSON.stringify(r.op)} → ${JSON.stringify(r.body)}`).toBeLessThan(500);
          const placedHolds = await positionsOf(from, 'HoldPlaced', `data->>'tenant' = $3`, [tenant]);
          const answeredHolds = answers.filter((r) => r.op.kind === 'hold' && (r.status < 300 || recordedOnly(r)));
          expect(placedHolds.length, 'one HoldPlaced for each hold answered 201 or 503 "recorded"').toBe(answeredHolds.length);
          const holds = placedHolds.map((x) => ({ id: x.data.hold as string, selector: x.data.selector as Record<string, string> }));
          if (release) for (const h of holds) await a.admin('DELETE', `/v1/tenants/${tenant}/holds/${h.id}`);

          // Removals of this world's records, and where each hold and release stands in the log.
          const removed = await positionsOf(from, 'RecordRemoved', `data->>'scope' = ANY($3)`, [scopes]);
          const writes = await positionsOf(from, 'RecordVersionWritten', `data->>'scope' = ANY($3)`, [scopes]);
          const subjectsOf = (scope: string, key: string, before: number) =>
            new Set(writes.filter((x) => x.data.scope === scope && x.data.key === key && x.position < before).map((x) => x.data.data_subject as string));
          for (const h of holds) {
            const [placed] = await positionsOf(from, 'HoldPlaced', `data->>'hold' = $3`, [h.id]);
            const [lifted] = await positionsOf(from, 'HoldReleased', `data->>'hold' = $3`, [h.id]);
            for (const r of removed) {
              if (r.position < placed!.position || (lifted && r.position > lifted.position)) continue;
              const selected =
                h.selector.scope !== undefined
                  ? h.selector.scope === r.data.scope
                  : subjectsOf(r.data.scope, r.data.key, r.position).has(h.selector.data_subject!);
              expect(selected, `hold ${JSON.stringify(h.selector)} at ${placed!.position}; ${r.data.scope}#${r.data.key} removed at ${r.position}`).toBe(false);
            }
          }
          // Every acknowledged put: readable now, or its record removed after it was written.
          const reader = await caller(a, tenant, { purpose: 'routine:r' });
          for (const r of answers.filter((x) => x.op.kind === 'put' && x.status === 200)) {
            const [written] = writes.filter((x) => x.data.scope === r.scope && x.data.key === r.key && x.data.version === r.body.version);
            expect(written, `put ${r.scope}#${r.key} v${r.body.version} is in the log`).toBeDefined();
            const gone = removed.some((x) => x.data.scope === r.scope && x.data.key === r.key && x.position > written!.position);
            // A person record is deleted at its end for every reader, retention run or not.
            // (A record is a person record once any version of it was one.)
            const ended = writes.some((x) => x.data.scope === r.scope && x.data.key === r.key && x.data.subject_kind === 'person');
            if (gone || ended) continue;
            const got = await reader.rec({ op: 'history', scope: r.scope!, record_key: r.key! });
            const shown = (got.body.records ?? []).find((v: any) => v.version === r.body.version);
            const why = shown?.body
              ? ''
              : JSON.stringify({
                  keys: (await a.pool.query(`SELECT owner FROM custodian_data_keys WHERE scope = $1 AND record_key = $2`, [r.scope, r.key])).rows,
                  subject_keys: (await a.pool.query(`SELECT subject FROM custodian_subject_keys WHERE subject = ANY($1)`, [subjects])).rows,
                  rm: (await a.pool.query(`SELECT version, data_subject FROM rm_record_versions WHERE scope = $1 AND key = $2`, [r.scope, r.key])).rows,
                  log: (
                    await a.pool.query(
                      `SELECT position, type, data->>'data_subject' AS s, data->>'key' AS k, data->>'scope' AS sc FROM custodian_events WHERE position > $1 - 3 AND (data->>'scope' = ANY($2) OR data->>'data_subject' = ANY($3) OR type LIKE 'Hold%' OR type LIKE 'Erasure%') ORDER BY position`,
                      [writes[0]?.position ?? 0, scopes, subjects],
                    )
                  ).rows,
                  answers: answers.map((x) => [x.op, x.status, x.body?.receipt ?? x.body?.version ?? x.body?.error]),
                });
            expect(
              shown?.body,
              `put ${r.scope}#${r.key} v${r.body.version} answered 200: neither readable nor removed (${JSON.stringify(got.body)}) ${why}`,
            ).toEqual({
              w,
              subject: (r.op as { subject: number }).subject,
            });
          }
          // A complete erasure left nothing of its subject written before it was asked for.
          for (const e of answers.filter((x) => x.op.kind === 'erase' && x.status < 300 && x.body.receipt?.complete === true)) {
            const subject = subjects[(e.op as { subject: number }).subject]!;
            const asked = (await positionsOf(from, 'ErasureRequested', `data->>'data_subject' = $3`, [subject])).map((x) => x.position);
            const { rows } = await a.pool.query<{ scope: string; key: string; version: number }>(
              `SELECT scope, key, version FROM rm_record_versions WHERE tenant = $3 AND scope = ANY($1) AND data_subject = $2`,
              [scopes, subject, tenant],
            );
            for (const left of rows) {
              // The newest incarnation's write of that version (a removed record may have been started again).
              const written = writes.filter((x) => x.data.scope === left.scope && x.data.key === left.key && x.data.version === left.version).at(-1);
              expect(written!.position, `${left.scope}#${left.key} v${left.version} of ${subject} left live by a complete erasure`).toBeGreaterThan(
                Math.min(...asked),
              );
            }
          }
        },
      ),
      // FC_SEED and FC_PATH replay a failure fast-check printed (its inputs; the timings are the machine's).
      { numRuns: RUNS, ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED), path: process.env.FC_PATH } : {}) },
    );
  }, 1_800_000);
});
