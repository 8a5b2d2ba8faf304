import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, records, warm } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * Red-team pass over the runner's rest between cycles (issue 14, `coalesceMs`): with a rest
 * far longer than any test may last, every answer that promises its read models, `catchUp`
 * and `stop` must still come back — a waiter, catchUp and stop cut the rest short. Were any
 * of them to wait it out, this file would time out rather than pass.
 */
let a: TestService;
let b: TestService;
beforeAll(async () => {
  process.env.CUSTODIAN_RUNNER_COALESCE_MS = '600000';
  a = await startTestService();
  b = await startTestService({ shareWith: a });
  delete process.env.CUSTODIAN_RUNNER_COALESCE_MS;
  expect((await a.admin('POST', '/v1/tenants', { id: 'acme' })).status).toBe(201);
  expect((await b.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] })).status).toBeLessThan(300);
});
afterAll(async () => {
  await b?.stop();
  await a?.stop();
});

describe('a runner resting ten minutes between cycles', () => {
  it('answers admin writes between a stream of puts, each usable at once on the other instance', async () => {
    const writer = await caller(a, 'acme');
    await warm(b, writer);
    for (let i = 0; i < 6; i++) {
      // Puts wake the runner (their events are in the log) and start its rest with no waiter.
      for (let j = 0; j < 3; j++)
        expect((await records(b, writer.ticket, { op: 'put', scope: 'project:rest', record_key: `k-${i}-${j}`, body: { i, j }, expect: 0 })).status).toBe(200);
      const [here, there] = i % 2 ? [a, b] : [b, a];
      const c = await caller(here, 'acme');
      expect((await records(there, c.ticket, { op: 'get', scope: 'project:rest', record_key: `k-${i}-0` })).body.record?.body).toEqual({ i, j: 0 });
      expect((await here.admin('POST', `/v1/tenants/acme/jobs/${c.job}/calls/${c.call}/end`)).status).toBe(200);
      expect((await records(there, c.ticket, { op: 'get', scope: 'project:rest', record_key: `k-${i}-0` })).body.error).toBe('ticket');
    }
  });

  it('catches up every model (the lagging audit too) when asked, on both instances', async () => {
    const c = await caller(a, 'acme');
    expect((await c.rec({ op: 'get', scope: 'project:rest', record_key: 'k-0-0' })).status).toBe(200);
    await a.runner.catchUp();
    await b.runner.catchUp();
    const head = await a.lastPosition();
    const { rows } = await a.pool.query<{ name: string; position: string }>('SELECT name, position FROM custodian_checkpoints ORDER BY name');
    expect(rows.length).toBeGreaterThan(3);
    expect(rows.map((r) => [r.name, Number(r.position)])).toEqual(rows.map((r) => [r.name, head]));
  });
});
