import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preparedTexts } from '../../../adapters/postgres/prepared.ts';
import { caller, type Caller } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/*
 * A list's limit was spelled into its SQL text, and every text runs as a statement prepared on
 * each connection for good: an agent listing with limits 1, 2, 3 … made the service and
 * PostgreSQL keep one more statement each time. The limit is a parameter.
 */
let svc: TestService;
let c: Caller;

beforeAll(async () => {
  svc = await startTestService();
  await svc.admin('POST', '/v1/tenants', { id: 'acme' });
  await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] });
  c = await caller(svc, 'acme', { input: 'lists' });
  expect((await c.rec({ op: 'put', scope: 'tenant', record_key: 'a', body: { n: 1 }, expect: 0 })).status).toBe(200);
});
afterAll(async () => svc?.stop());

describe('a list limit prepares no statement of its own', () => {
  it('given lists of one shape with 40 limits, then the service prepares no text beyond the first list', async () => {
    expect((await c.rec({ op: 'list', list: { limit: 50 } })).status).toBe(200);
    // The list's texts only: the runner and the audit integrator prepare texts of their own meanwhile.
    const lists = () => preparedTexts().filter((t) => t.includes('FROM rm_records r') && t.includes('JOIN LATERAL'));
    const before = lists();
    expect(before.length).toBeGreaterThan(0);
    for (let limit = 1; limit <= 40; limit++) {
      const res = await c.rec({ op: 'list', list: { limit } });
      expect(res.status).toBe(200);
      expect(res.body.records.map((r: { key: string }) => r.key)).toEqual(['a']);
    }
    expect(lists()).toEqual(before);
  });
});
