import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, records, warm } from '../../support/records.ts';
import { type TestService } from '../../support/service.ts';
import { startPair, stopPair } from '../../support/pair.ts';

/**
 * Red-team pass over the call-context cache against an attacker with SQL access: the log
 * edited while a ticket is warm on A. A warm ticket must be refused exactly as a cold one (B).
 */
let a: TestService;
let b: TestService;
beforeAll(async () => ({ a, b } = await startPair()));
afterAll(() => stopPair({ a, b }));

const flipSql = (path: string, at: number) =>
  `UPDATE custodian_events
      SET data = jsonb_set(data, '${path}', to_jsonb(overlay(data #>> '${path}' PLACING
                   CASE WHEN substr(data #>> '${path}', ${at + 1}, 1) = 'a' THEN 'b' ELSE 'a' END FROM ${at + 1} FOR 1)))
    WHERE stream = $1 AND type = 'EnvelopeBlockAppended'`;

let n = 0;
/** Each op on its own records, so one answer never depends on another test's write. */
const opsFor = (scope: string) => [
  { op: 'put', scope, record_key: 'new', body: {}, expect: 0 },
  { op: 'get', scope, record_key: 'seed' },
  { op: 'history', scope, record_key: 'seed' },
  { op: 'list' },
];
const OPS = ['put', 'get', 'history', 'list'] as const;

/** What a ticket's next request answers: the warm ticket on A, a cold call of the same job on B. */
const compare = async (job: string, warmTicket: string, coldTicket: string, i: number, scope: string) => {
  const before = await a.lastPosition();
  const onA = await records(a, warmTicket, opsFor(scope)[i]);
  const afterA = await a.lastPosition();
  const onB = await records(b, coldTicket, { ...opsFor(scope)[i], ...(i === 0 ? { record_key: 'new-b' } : {}) });
  return { before, afterA, onA, onB, job };
};

describe("a parent's block edited while its child's ticket is warm", () => {
  it.each(OPS.map((op, i) => [op, i] as const))('%s on A answers as a cold call of the child on B', async (_op, i) => {
    const scope = `project:p${++n}`;
    const parent = await caller(a, 'acme');
    const child = await caller(a, 'acme', { start: { parent: parent.job } });
    expect((await child.rec({ op: 'put', scope, record_key: 'seed', body: {}, expect: 0 })).status).toBe(200);
    await warm(a, child);
    const cold = await a.admin('POST', `/v1/tenants/acme/jobs/${child.job}/calls`, { function: 'save' });
    const coldTicket: string = cold.body._meta['oz0/records'].ticket;
    const { rowCount } = await a.pool.query(flipSql('{signed,block,subject}', 0), [`job:acme:${parent.job}`]);
    expect(rowCount).toBeGreaterThan(0);
    const { onA, onB, before, afterA } = await compare(child.job, child.ticket, coldTicket, i, scope);
    expect({ status: onA.status, error: onA.body.error }).toEqual({ status: onB.status, error: onB.body.error });
    if (onB.status >= 400) expect(afterA).toBe(before);
  });
});

describe("the job's own block edited while its ticket is warm", () => {
  it.each(OPS.map((op, i) => [op, i] as const))('%s on A is refused as on B, writing nothing', async (_op, i) => {
    const scope = `project:o${++n}`;
    const c = await caller(a, 'acme');
    expect((await c.rec({ op: 'put', scope, record_key: 'seed', body: {}, expect: 0 })).status).toBe(200);
    await warm(a, c);
    const cold = await a.admin('POST', `/v1/tenants/acme/jobs/${c.job}/calls`, { function: 'save' });
    const coldTicket: string = cold.body._meta['oz0/records'].ticket;
    const { rowCount } = await a.pool.query(flipSql('{signed,block,subject}', 0), [`job:acme:${c.job}`]);
    expect(rowCount).toBe(1);
    const { onA, onB, before, afterA } = await compare(c.job, c.ticket, coldTicket, i, scope);
    expect(onA).toMatchObject({ status: 403, body: { error: 'revoked' } });
    expect(onA.body).toEqual(onB.body);
    expect(afterA).toBe(before);
  });
});
