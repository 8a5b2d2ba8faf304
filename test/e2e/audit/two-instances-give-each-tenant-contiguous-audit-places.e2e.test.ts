import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPool } from '../../../adapters/postgres/pool.ts';
import { leafHash, nodeHash } from '../../../domain/audit/merkle.ts';
import { canonicalJson } from '../../../domain/shared/hash.ts';
import { caller, type Caller } from '../../support/records.ts';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/service.ts';

/**
 * Audit places under two committers on one database: random interleavings of audited writes
 * (holds, puts) and refused ones (puts at a stale revision) on two instances, for two tenants at
 * once. After each run every tenant's lines hold places 0…n−1 with none missing or twice, n is
 * its counter, a refused put took no place, each stored line is the canonical JSON of itself
 * with its own seq, and once both integrators caught up the served root is the root of exactly
 * those lines.
 */
vi.setConfig({ testTimeout: 600_000, hookTimeout: 600_000 });
const RUNS = Number(process.env.CUSTODIAN_AUDIT_RACE_RUNS ?? 12);
const TENANTS = ['race0', 'race1'];
let a: TestService;
let b: TestService;
let pool: pg.Pool;
const callers = new Map<string, Caller>();

/** RFC 6962 root of these lines, computed here from scratch. */
const rootOf = (lines: readonly string[]): Buffer => {
  const mth = (from: number, to: number): Buffer => {
    if (to - from === 1) return leafHash(Buffer.from(lines[from]!));
    let k = 1;
    while (k * 2 < to - from) k *= 2;
    return nodeHash(mth(from, from + k), mth(from + k, to));
  };
  return mth(0, lines.length);
};

beforeAll(async () => {
  a = await startTestService();
  b = await startTestService({ shareWith: a });
  pool = createPool(a.databaseUrl, 2);
  for (const t of TENANTS) {
    expect((await a.admin('POST', '/v1/tenants', { id: t })).status).toBe(201);
    expect((await a.admin('POST', `/v1/tenants/${t}/plugins`, { name: 'notes', functions: ['save'], agents: ['scribe'] })).status).toBe(201);
  }
});
afterAll(async () => {
  await pool?.end();
  await b?.stop();
  await a?.stop();
});

const op = fc.record({
  on: fc.constantFrom(0, 1),
  tenant: fc.constantFrom(0, 1),
  kind: fc.constantFrom('hold', 'put'),
  key: fc.constantFrom('k0', 'k1'),
  // A guess at the record's revision: most guesses lose to another put and are refused.
  expect: fc.integer({ min: 0, max: 3 }),
});

let run = 0;
let refused = 0;
describe('two instances on one database give each tenant contiguous audit places', () => {
  it('given random interleavings of audited and refused writes on two instances, then every tenant has lines at 0…n−1 exactly, n its counter, refused writes took no place, and the root served is the root of those lines', async () => {
    const accepted = new Map<string, { holds: number; writes: number }>(TENANTS.map((t) => [t, { holds: 0, writes: 0 }]));
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 4, maxLength: 24 }), async (ops) => {
        run++;
        // A fresh call per run and tenant: a call makes at most 64 requests.
        for (const t of TENANTS) callers.set(t, await caller(a, t, { input: `race ${run}` }));
        await Promise.all(
          ops.map(async (o, i) => {
            const svc = o.on === 0 ? a : b;
            const t = TENANTS[o.tenant]!;
            if (o.kind === 'hold') {
              const res = await svc.admin('POST', `/v1/tenants/${t}/holds`, { selector: { data_subject: `user:r${run}-${i}` }, reason: 'race' });
              expect(res.status).toBe(201);
              accepted.get(t)!.holds++;
              return;
            }
            const res = await fetch(`${svc.url}/v1/records`, {
              method: 'POST',
              headers: { authorization: `Bearer ${callers.get(t)!.ticket}`, 'content-type': 'application/json' },
              body: JSON.stringify({ op: 'put', scope: 'project:a', record_key: `${o.key}-${run}`, body: { i }, expect: o.expect }),
            });
            const body = (await res.json()) as { error?: string };
            expect([200, 409], JSON.stringify(body)).toContain(res.status);
            if (res.status === 200) accepted.get(t)!.writes++;
            else refused++;
          }),
        );
        await a.runner.catchUp();
        await b.runner.catchUp();
        for (const t of TENANTS) {
          const { rows } = await pool.query<{ seq: string; line: string }>('SELECT seq, line FROM custodian_audit_lines WHERE tenant = $1 ORDER BY seq', [t]);
          const size = Number((await pool.query<{ size: string }>('SELECT size FROM custodian_audit_sizes WHERE tenant = $1', [t])).rows[0]?.size ?? 0);
          expect(rows.map((r) => Number(r.seq))).toEqual(Array.from({ length: size }, (_, i) => i));
          const entries = rows.map((r) => JSON.parse(r.line) as { seq: number; kind: string });
          rows.forEach((r, i) => {
            expect(entries[i]!.seq).toBe(i);
            expect(r.line).toBe(canonicalJson(entries[i]));
          });
          expect(entries.filter((e) => e.kind === 'hold_placed')).toHaveLength(accepted.get(t)!.holds);
          expect(entries.filter((e) => e.kind === 'write')).toHaveLength(accepted.get(t)!.writes);
          const note = await fetch(`${b.url}/v1/tenants/${t}/audit/checkpoint`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
          const cp = (await note.json()) as { size: number; root: string };
          expect(cp.size).toBe(size);
          expect(cp.root).toBe(rootOf(rows.map((r) => r.line)).toString('base64'));
        }
      }),
      { numRuns: RUNS },
    );
    // The runs raced for real: writes on both sides committed, and some were refused.
    expect([...accepted.values()].reduce((n, c) => n + c.writes, 0)).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });
});
