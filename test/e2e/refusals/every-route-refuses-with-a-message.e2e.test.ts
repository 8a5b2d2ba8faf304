import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteInfo } from '../../../adapters/http/server.ts';
import { caller } from '../../support/records.ts';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/service.ts';

/**
 * A property over every route the server registers: whatever bad input it is sent (a body of
 * any JSON, of the wrong type, not JSON, an unknown field, a hostile query or path segment,
 * no credential), the answer is never a 5xx, and every refusal is a JSON object with a string
 * `error` and a non-empty `message` — on the agent API, one that starts `records:`.
 */

let svc: TestService;
let agentKey = '';
let ticket = '';
let used = 0;
beforeAll(async () => {
  svc = await startTestService({ testClock: true });
  expect((await svc.admin('POST', '/v1/tenants', { id: 'acme' })).status).toBe(201);
  expect((await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] })).status).toBe(201);
  agentKey = (await svc.admin('POST', '/v1/tenants/acme/agent-keys', { agent: 'bot' })).body.key;
}, 120_000);
afterAll(async () => svc?.stop());

/** A live ticket, a fresh call every 60 requests (a call takes 64). */
const liveTicket = async () => {
  if (ticket === '' || used++ >= 60) {
    ticket = (await caller(svc, 'acme')).ticket;
    used = 1;
  }
  return ticket;
};

const credential = async (route: RouteInfo, withKey: boolean): Promise<Record<string, string>> => {
  if (!withKey) return {};
  if (route.auth === 'admin' || route.auth === 'auditor-key') return { authorization: `Bearer ${ADMIN_KEY}` };
  if (route.auth === 'ticket') return { authorization: `Bearer ${await liveTicket()}` };
  if (route.auth === 'agent-key') return { authorization: `Bearer ${agentKey}` };
  return {};
};

const segment = fc.oneof(
  fc.constantFrom('acme', 'j1', 'notes', 'scribe', 'x', '%ZZ', '..', '%00', 'a'.repeat(300)),
  fc.string({ maxLength: 12 }).map(encodeURIComponent),
);
const query = fc.oneof(
  fc.constant(''),
  fc
    .array(fc.tuple(fc.constantFrom('limit', 'since', 'until', 'kind', 'record', 'budget', 'view', 'after', 'position', 'zzz'), fc.string({ maxLength: 10 })), {
      minLength: 1,
      maxLength: 3,
    })
    .map((pairs) => `?${pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')}`),
);
const body = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map((v) => ({ text: JSON.stringify(v) ?? 'null', type: 'application/json' })),
  fc.record({ zzz_unknown: fc.jsonValue({ maxDepth: 1 }) }).map((v) => ({ text: JSON.stringify(v), type: 'application/json' })),
  fc.constantFrom(
    { text: '{"op":"list","scope":"tenant","limit":2}', type: 'application/json' },
    { text: '{"a":', type: 'application/json' },
    { text: '"just text"', type: 'application/json' },
    { text: 'plain', type: 'text/plain' },
    { text: '{}', type: 'application/xml' },
  ),
  fc.constant(undefined),
);

describe('every route refuses bad input with an error and a message, never a 5xx', () => {
  it('holds for every registered route under generated bad input', { timeout: 600_000 }, async () => {
    const routes = svc.http.routeTable.filter((r) => r.method !== 'HEAD');
    expect(routes.length).toBeGreaterThan(45);
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes), segment, query, body, fc.boolean(), async (route, piece, q, b, withKey) => {
        seen.add(`${route.method} ${route.url}`);
        const url = route.url.replace(/:[A-Za-z_]+/g, () => piece).replace(/\*$/, piece) + q;
        const headers = { ...(await credential(route, withKey)), ...(b ? { 'content-type': b.type } : {}) };
        const res = await svc.http.inject({ method: route.method as 'GET', url, headers, ...(b ? { payload: b.text } : {}) });
        const label = `${route.method} ${url} ${b?.type ?? ''} ${b?.text.slice(0, 80) ?? ''} → ${res.statusCode} ${res.body.slice(0, 200)}`;
        expect(res.statusCode, label).toBeLessThan(500);
        if (res.statusCode < 400) return;
        const json = JSON.parse(res.body) as { error?: unknown; message?: unknown };
        expect(typeof json.error, label).toBe('string');
        expect(typeof json.message === 'string' && json.message.length > 0, label).toBe(true);
        // The agent API as the router saw the path (`..` segments resolved).
        const seenPath = new URL(url, 'http://x').pathname;
        if (/^\/v1\/agent(\/|$)/.test(seenPath)) expect(String(json.message), label).toMatch(/^records: /);
      }),
      { numRuns: 600, seed: 20261201 },
    );
    // Every route was reached at least once.
    expect(routes.filter((r) => !seen.has(`${r.method} ${r.url}`)).map((r) => `${r.method} ${r.url}`)).toEqual([]);
  });

  it('answers unknown routes, on every prefix, with not_found and a message', async () => {
    for (const path of ['/nowhere', '/v1/agent/nowhere', '/v1/tenants/acme/nowhere', '/docs/nowhere.js']) {
      const res = await svc.http.inject({ method: 'GET', url: path });
      expect(res.statusCode, path).toBe(404);
      const json = res.json() as { error: string; message: string };
      expect(json.error).toBe('not_found');
      expect(json.message.length).toBeGreaterThan(10);
    }
  });
});
