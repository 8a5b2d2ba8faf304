import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorise } from '../../../adapters/http/route-auth.ts';
import type { RouteInfo } from '../../../adapters/http/server.ts';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/service.ts';
import { rawRequest, type RawAnswer } from './edge-raw-http.ts';

/**
 * Enumerates every registered route and proves each non-public one refuses without its
 * credential, with a wrong one, and under every other spelling of its path — and that no
 * spelling reaches a handler: the answer is one only the edge gives (the auth refusal, the
 * not-found route, the target refusal), and the log does not move.
 */

let svc: TestService;
let call = '';
const HOLD = '00000000-0000-4000-8000-000000000000';

/** The only routes anyone may call. A new public route must be added here on purpose. */
const PUBLIC_ROUTES = [
  'GET /healthz',
  'HEAD /healthz',
  'GET /openapi.json',
  'HEAD /openapi.json',
  'GET /metrics',
  'HEAD /metrics',
  'GET /v1/audit-key',
  'HEAD /v1/audit-key',
  // The console's static files (SPEC §14): they hold no data; its calls carry the key it is given.
  'GET /console',
  'HEAD /console',
  'GET /console/:file',
  'HEAD /console/:file',
  // Where to go, and the browsable API reference of /openapi.json: they hold no data either.
  'GET /',
  'HEAD /',
  // (fastify registers /docs/ as a HEAD route only: a GET of it is served by the /docs route)
  'HEAD /docs/',
  ...['', '/json', '/yaml', '/static/index.html', '/static/swagger-initializer.js', '/static/*'].flatMap((p) => [`GET /docs${p}`, `HEAD /docs${p}`]),
];

beforeAll(async () => {
  svc = await startTestService({ testClock: true });
  expect((await svc.admin('POST', '/v1/tenants', { id: 'acme' })).status).toBe(201);
  expect((await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] })).status).toBe(201);
  expect((await svc.admin('POST', '/v1/tenants/acme/jobs', { id: 'j1', agent: 'scribe', plugin: 'notes', subject: 's', input: 'x' })).status).toBe(201);
  const minted = await svc.admin('POST', '/v1/tenants/acme/jobs/j1/calls', { function: 'save' });
  expect(minted.status).toBe(201);
  call = minted.body.call.id;
});
afterAll(async () => svc?.stop());

const PARAMS: Record<string, () => string> = {
  t: () => 'acme',
  id: () => 'j1',
  call: () => call,
  hold: () => HOLD,
  plugin: () => 'notes',
  agent: () => 'scribe',
};

/** A concrete path for a route, with parameters that name things that exist. */
const concrete = (url: string) => url.replace(/:([A-Za-z_]+)/g, (_m, name: string) => (PARAMS[name] ?? (() => 'x'))());

/** Bodies that would write if they reached their handler, so a leak moves the log. */
const BODIES: Record<string, unknown> = {
  'POST /v1/tenants': { id: 'pwned' },
  'PATCH /v1/tenants/:t': { retention_days: 5 },
  'POST /v1/tenants/:t/plugins': { name: 'evil', functions: ['f'], agents: ['a'] },
  'POST /v1/tenants/:t/revocations': { revocations: [{ kind: 'kill_agent', agent: 'notes/scribe' }] },
  'POST /v1/tenants/:t/jobs': { agent: 'scribe', plugin: 'notes', subject: 's', input: 'pwned' },
  'POST /v1/tenants/:t/jobs/:id/calls': { function: 'save' },
  'POST /v1/tenants/:t/holds': { selector: { tenant: true }, reason: 'pwned' },
  'POST /v1/tenants/:t/erasures': { data_subject: 'user:pwned' },
  'POST /v1/_clock': { advance_ms: 1000 },
  'POST /v1/records': { op: 'put', scope: 'tenant', record_key: 'pwned', expect: 0, body: {} },
};

/** Every other way to spell a path that a lax edge might route to the same handler. */
const spellings = (path: string, base: string): [string, string][] => {
  const segments = path.split('/').slice(1);
  const last = segments.length - 1;
  const encodeFirst = (s: string) => `%${s.charCodeAt(0).toString(16)}${s.slice(1)}`;
  return [
    ['percent-encoded first letter', `/${encodeFirst(segments[0]!)}/${segments.slice(1).join('/')}`.replace(/\/$/, '')],
    ['percent-encoded last segment', `/${[...segments.slice(0, last), encodeFirst(segments[last]!)].join('/')}`],
    ['percent-encoded upper-case hex', `/${encodeFirst(segments[0]!).toUpperCase()}/${segments.slice(1).join('/')}`.replace(/\/$/, '')],
    ['%2F for slashes', `/${segments.join('%2F')}`],
    ['%2f for the last slash', `/${segments.slice(0, last).join('/')}%2f${segments[last]}`],
    ['absolute form', `http://x${path}`],
    ['absolute form naming this server', `${base}${path}`],
    ['doubled leading slash', `/${path}`],
    ['doubled inner slash', path.replace(/\//g, '//').slice(1)],
    ['trailing dot', `${path}.`],
    ['trailing dot segment', `${path}/.`],
    ['dot segment', `/${segments[0]}/./${segments.slice(1).join('/')}`],
    ['encoded dot segment', `/${segments[0]}/%2e/${segments.slice(1).join('/')}`],
    ['dot-dot segment', `/${segments[0]}/x/../${segments.slice(1).join('/')}`],
    ['trailing slash', `${path}/`],
    ['upper case', path.toUpperCase()],
    ['upper-case first segment', `/${segments[0]!.toUpperCase()}/${segments.slice(1).join('/')}`.replace(/\/$/, '')],
    ['backslashes', path.replace(/\//g, '\\')],
    ['matrix parameter', `${path};x=1`],
    ['asterisk', '*'],
  ];
};

/** True when the answer came from the edge, before any handler. */
const refusedAtTheEdge = (r: RawAnswer, method: string, auth: string | undefined) => {
  if (method === 'HEAD') return [400, 401, 403, 404].includes(r.status);
  const b = r.json;
  if (r.headers['content-type']?.startsWith('application/json') !== true) return false;
  if (b === undefined) return false;
  if (r.status === 401) return auth === 'ticket' ? b.error === 'ticket' && b.job_purpose === '' : b.error === 'unauthorized';
  if (r.status === 404) return b.error === 'not_found' && b.what === 'route';
  // 'request': node's parser could not read it at all (it never reached the router).
  if (r.status === 400) return b.error === 'invalid' && (b.field === 'target' || b.field === 'request');
  return false;
};

const send = (method: string, target: string, auth: string | undefined, credential: string | null, body?: unknown) => {
  const lines = [`Host: ${new URL(svc.url).host}`];
  if (credential !== null) lines.push(`Authorization: Bearer ${credential}`);
  const payload =
    body === undefined || method === 'GET' || method === 'HEAD' || method === 'DELETE'
      ? undefined
      : auth === 'admin' && target.includes('import')
        ? ''
        : JSON.stringify(body);
  if (payload !== undefined) lines.push(`Content-Type: ${target.includes('import') ? 'application/x-ndjson' : 'application/json'}`);
  return rawRequest(svc.url, method, target, lines, payload);
};

describe('authorisation is decided on the matched route, deny by default', () => {
  it('every registered route declares who may call it, and only the known ones are public', () => {
    const table: readonly RouteInfo[] = svc.http.routeTable;
    expect(table.length).toBeGreaterThan(20);
    expect(table.filter((r) => r.auth === undefined)).toEqual([]);
    expect(
      table
        .filter((r) => r.auth === 'public')
        .map((r) => `${r.method} ${r.url}`)
        .sort(),
    ).toEqual([...PUBLIC_ROUTES].sort());
  });

  it('every non-public route refuses without its credential, with a wrong one, and under every other spelling; no spelling reaches a handler', async () => {
    const table = svc.http.routeTable.filter((r) => r.auth !== 'public');
    const head = await svc.lastPosition();
    const leaks: string[] = [];
    let tried = 0;
    const attempts: (() => Promise<void>)[] = [];
    for (const route of table) {
      const path = concrete(route.url);
      const body = BODIES[`${route.method} ${route.url}`] ?? {};
      const targets: [string, string][] = [['as registered', path], ...spellings(path, svc.url)];
      for (const [how, target] of targets) {
        // The admin key is a credential of admin routes and of the read-only auditor routes (the audit log's hashes too).
        for (const credential of [
          null,
          'wrong-key',
          `${ADMIN_KEY}x`,
          ...(route.auth === 'admin' || route.auth === 'auditor-key' || route.auth === 'audit-hashes' ? [] : [ADMIN_KEY]),
        ])
          attempts.push(async () => {
            const r = await send(route.method, target, route.auth, credential, body);
            tried++;
            if (!refusedAtTheEdge(r, route.method, route.auth))
              leaks.push(`${route.method} ${target} (${how}, credential ${credential ?? 'none'}) → ${r.status} ${r.text.slice(0, 120)}`);
          });
      }
    }
    // Every attempt is judged on its own answer, so four are in flight at a time (each on its own
    // connection); the log head is compared once all have been answered.
    const worker = async (): Promise<void> => {
      const next = attempts.shift();
      if (next === undefined) return;
      await next();
      return worker();
    };
    await Promise.all(Array.from({ length: 4 }, worker));
    leaks.sort();
    console.log(`route-auth: ${table.length} non-public routes, ${tried} hostile requests, ${leaks.length} reached past the edge`);
    expect(leaks).toEqual([]);
    expect(await svc.lastPosition()).toBe(head);
  });

  it('a percent-encoded spelling with the admin key reaches the same route: the refusal above was the credential', async () => {
    const r = await send('GET', '/%761/tenants/acme', 'admin', ADMIN_KEY);
    expect(r.status).toBe(200);
    expect(r.json.tenant.id).toBe('acme');
    const created = await send('POST', '/%761/tenants', 'admin', ADMIN_KEY, { id: 'encoded' });
    expect(created.status).toBe(201);
  });

  it('a route that declares nothing, or a credential the server was built without a resolver for, is refused', async () => {
    const app = Fastify();
    app.addHook('onRequest', authorise('k'));
    let reached = 0;
    app.get('/undeclared', async () => ++reached);
    app.get('/agent', { config: { auth: 'agent-key' } }, async () => ++reached);
    app.get('/auditor', { config: { auth: 'auditor-key' } }, async () => ++reached);
    app.get('/admin', { config: { auth: 'admin' } }, async () => ++reached);
    for (const url of ['/undeclared', '/agent', '/auditor']) {
      const r = await app.inject({ method: 'GET', url, headers: { authorization: 'Bearer k' } });
      expect(r.statusCode).toBe(403);
      expect(r.json()).toMatchObject({ error: 'unauthorized' });
    }
    expect(reached).toBe(0);
    expect((await app.inject({ method: 'GET', url: '/admin', headers: { authorization: 'Bearer k' } })).statusCode).toBe(200);
    expect(reached).toBe(1);
    await app.close();
  });
});
