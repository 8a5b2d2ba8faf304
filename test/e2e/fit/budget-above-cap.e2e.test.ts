import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAP } from '../../../clients/typescript/src/fit/bounds.ts';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/service.ts';
import { caller, type Caller } from '../../support/records.ts';

let svc: TestService;
let job: Caller;
let agentKey: string;
let ref: string;

const ABOVE = 60_000;
const HUGE = 10 ** 12;

const send = async (key: string, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${svc.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, text: await res.text() };
};
/** The fit note of a JSON answer, or of a JSON Lines answer's last line. */
const noteOf = (text: string) => JSON.parse(text.trim().split('\n').at(-1)!).fit;

beforeAll(async () => {
  svc = await startTestService();
  await svc.admin('POST', '/v1/tenants', { id: 'acme' });
  await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] });
  job = await caller(svc, 'acme', { input: 'caps', start: { offload: 100 } });
  expect((await job.rec({ op: 'put', scope: 'tenant', record_key: 'k1', body: { text: 'a note' }, expect: 0 })).status).toBe(200);
  const offloaded = await send(job.ticket, 'POST', '/v1/results', { tool: 't', content: 'A long result line.\n'.repeat(400) });
  expect(offloaded.status).toBe(200);
  ref = JSON.parse(offloaded.text).offloaded.ref;
  agentKey = (await svc.admin('POST', '/v1/tenants/acme/agent-keys', { agent: 'keeper' })).body.key;
  await send(agentKey, 'PUT', '/v1/agent/collections', { collections: { notes: { fields: ['kind'] } } });
  await send(agentKey, 'PUT', '/v1/agent/records/notes/n1', { value: { kind: 'note' } });
});
afterAll(async () => svc?.stop());

describe('a budget above CAP is answered as CAP on every fitted route, never refused', () => {
  const routes: [string, (budget: number) => Promise<{ status: number; text: string }>][] = [
    ['records list', (b) => send(job.ticket, 'POST', '/v1/records', { op: 'list', budget: b })],
    ['records history', (b) => send(job.ticket, 'POST', '/v1/records', { op: 'history', scope: 'tenant', record_key: 'k1', budget: b })],
    ['agent query', (b) => send(agentKey, 'POST', '/v1/agent/records/notes/query', { budget: b })],
    ['agent export', (b) => send(agentKey, 'GET', `/v1/agent/export?budget=${b}`)],
    ['audit replay', (b) => send(ADMIN_KEY, 'GET', `/v1/tenants/acme/audit?budget=${b}`)],
    ['tenant export', (b) => send(ADMIN_KEY, 'GET', `/v1/tenants/acme/export?budget=${b}`)],
    ['results read', (b) => send(job.ticket, 'POST', '/v1/results/read', { ref, budget: b })],
  ];
  for (const [name, ask] of routes)
    it(name, async () => {
      for (const budget of [ABOVE, HUGE]) {
        const res = await ask(budget);
        expect(res.status, `${name} budget ${budget}: ${res.text.slice(0, 300)}`).toBe(200);
        expect(noteOf(res.text).budget).toBe(CAP);
      }
    });
});
