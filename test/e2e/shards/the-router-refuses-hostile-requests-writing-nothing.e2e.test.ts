import { connect } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller } from '../../support/records.ts';
import type { TestService } from '../../support/service.ts';
import { ADMIN_KEY } from '../../support/service.ts';
import { shardedDeployment, startTenantServers, type ShardedInstance, type TenantServer } from '../../support/shards.ts';

// Two tenant databases, acme on db1 and globex on db2: every hostile request below is sent to
// the router's real port and must be a 4xx JSON refusal (or the right tenant's answer) that
// writes nothing and never reaches the other tenant's database.
let servers: TenantServer[] = [];
let deployment: Awaited<ReturnType<typeof shardedDeployment>>;
let svc: ShardedInstance;
let acmeAuditor: string;
let globexAuditor: string;

/** Every row of every table that holds events, in each tenant database and the control database. */
const writes = async (): Promise<string> => {
  const out: string[] = [];
  for (const url of [...servers.map((s) => s.url), deployment.control.url]) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const tables = await client.query<{ t: string }>(
      "SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' AND tablename IN ('custodian_events', 'custodian_placement') ORDER BY 1",
    );
    for (const { t } of tables.rows) out.push(`${url} ${t} ${(await client.query(`SELECT count(*)::int AS n FROM ${t}`)).rows[0].n}`);
    await client.end();
  }
  return out.join('\n');
};

/** A request written byte for byte on a socket: the answer's status line, headers and body as text. */
const raw = (bytes: string | Buffer): Promise<string> =>
  new Promise((resolve, reject) => {
    const { port } = new URL(svc.url);
    const socket = connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.on('error', (e: NodeJS.ErrnoException) =>
      e.code === 'ECONNRESET' || e.code === 'EPIPE' ? resolve(Buffer.concat(chunks).toString('latin1')) : reject(e),
    );
    socket.write(bytes);
  });

const statusOf = (answer: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
const bodyOf = (answer: string) => answer.slice(answer.indexOf('\r\n\r\n') + 4);

const send = async (method: string, route: string, opts: { auth?: string; body?: string | Buffer; type?: string } = {}) => {
  const res = await fetch(`${svc.url}${route}`, {
    method,
    headers: {
      ...(opts.auth ? { authorization: `Bearer ${opts.auth}` } : {}),
      ...(opts.body !== undefined ? { 'content-type': opts.type ?? 'application/json' } : {}),
    },
    ...(opts.body !== undefined ? { body: opts.body } : {}),
  });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type') ?? '', text };
};

/** A 4xx with a JSON error body that says what to change. */
const refused = (answer: { status: number; type: string; text: string }, status?: number) => {
  if (status !== undefined) expect(answer.status, answer.text).toBe(status);
  expect(answer.status, answer.text).toBeGreaterThanOrEqual(400);
  expect(answer.status, answer.text).toBeLessThan(500);
  expect(answer.type).toMatch(/^application\/json/);
  const body = JSON.parse(answer.text) as { error?: unknown };
  expect(typeof body.error).toBe('string');
  return body;
};

beforeAll(async () => {
  servers = await startTenantServers(2);
  deployment = await shardedDeployment(servers);
  svc = await deployment.instance();
  expect((await svc.admin('POST', '/v1/tenants', { id: 'acme', database: 'db1' })).status).toBe(201);
  expect((await svc.admin('POST', '/v1/tenants', { id: 'globex', database: 'db2' })).status).toBe(201);
  for (const t of ['acme', 'globex'])
    expect((await svc.admin('POST', `/v1/tenants/${t}/plugins`, { name: 'notes', functions: ['save'], agents: ['scribe'] })).status).toBe(201);
  acmeAuditor = (await svc.admin('POST', '/v1/tenants/acme/auditor-keys', {})).body.key;
  globexAuditor = (await svc.admin('POST', '/v1/tenants/globex/auditor-keys', {})).body.key;
}, 240_000);

afterAll(async () => {
  await deployment?.close();
  for (const s of servers) await s.remove();
});

describe('the router of several databases refuses hostile requests, writing nothing', () => {
  it('answers a tenant route without a credential, or with the other tenant’s auditor key, 401/403', async () => {
    const before = await writes();
    refused(await send('GET', '/v1/tenants/acme/audit'), 401);
    refused(await send('GET', '/v1/tenants/acme/audit/log/tile/entries/000.p/1'), 401);
    refused(await send('POST', '/v1/tenants/acme/auditor-keys', { body: '{}' }), 401);
    for (const route of ['/v1/tenants/acme/audit', '/v1/tenants/acme/audit/log/checkpoint', '/v1/tenants/acme/audit/log/tile/entries/000.p/1']) {
      const wrong = await send('GET', route, { auth: globexAuditor });
      expect([401, 403, 404]).toContain(wrong.status);
      if (wrong.status !== 404) refused(wrong);
    }
    // The right auditor reads its own tenant's log through the router.
    expect((await send('GET', '/v1/tenants/acme/audit', { auth: acmeAuditor })).status).toBe(200);
    expect((await send('GET', '/v1/tenants/globex/audit', { auth: acmeAuditor })).status).toBeGreaterThanOrEqual(401);
    expect(await writes()).toBe(before);
  });

  it('refuses a ticket on the other tenant’s routes, and the ticket of an ended call', async () => {
    const c = await caller(svc as unknown as TestService, 'acme');
    const before = await writes();
    refused(await send('GET', '/v1/tenants/globex/audit', { auth: c.ticket }));
    refused(await send('POST', '/v1/tenants/globex/auditor-keys', { auth: c.ticket, body: '{}' }));
    refused(await send('POST', '/v1/tenants', { auth: c.ticket, body: JSON.stringify({ id: 'stolen' }) }));
    refused(await send('POST', '/v1/tenants/globex/move', { auth: c.ticket, body: JSON.stringify({ to: 'db1' }) }), 401);
    expect(await writes()).toBe(before);
    const ended = await svc.admin('POST', `/v1/tenants/acme/jobs/${c.job}/calls/${c.call}/end`, {});
    expect(ended.status, JSON.stringify(ended.body)).toBeLessThan(300);
    const after = await writes();
    const late = await send('POST', '/v1/records', {
      auth: c.ticket,
      body: JSON.stringify({ op: 'put', scope: 'tenant', record_key: 'k', body: 1, expect: 0 }),
    });
    refused(late);
    expect(await writes()).toBe(after);
  });

  it('reads a percent-encoded tenant as the tenant it spells, and refuses one no tenant id can be, never 5xx', async () => {
    const before = await writes();
    const spelled = await send('GET', '/v1/tenants/%61cme/audit', { auth: acmeAuditor });
    expect(spelled.status, spelled.text).toBe(200);
    expect((await send('GET', '/v1/tenants/%67lobex/audit', { auth: acmeAuditor })).status).toBeGreaterThanOrEqual(401);
    for (const t of ['acme%2Fx', '%2E%2E', 'ac%00me', '%00', 'acme%ED%A0%80', '%ED%A0%80', '%FF', 'acme%', '%C0%AF', '%EF%BF%BF']) {
      for (const auth of [ADMIN_KEY, acmeAuditor, undefined]) {
        refused(await send('GET', `/v1/tenants/${t}/audit`, auth ? { auth } : {}));
        refused(await send('POST', `/v1/tenants/${t}/auditor-keys`, { ...(auth ? { auth } : {}), body: '{}' }));
        refused(await send('POST', `/v1/tenants/${t}/move`, { ...(auth ? { auth } : {}), body: JSON.stringify({ to: 'db2' }) }));
      }
    }
    // The console's stream browser: such a prefix names no stream (an empty page), or is refused.
    for (const route of ['/v1/events/streams?prefix=tenant:ac%00me', '/v1/events/streams?prefix=tenant:%ED%A0%80', '/v1/events/streams/tenant:ac%00me']) {
      const answer = await send('GET', route, { auth: ADMIN_KEY });
      if (answer.status >= 400) refused(answer);
      else expect(JSON.parse(answer.text).streams ?? [], answer.text).toEqual([]);
    }
    expect(await writes()).toBe(before);
  });

  it('answers an absolute-form or doubled-slash request target as its own path, or refuses it, never from another database', async () => {
    const before = await writes();
    // Absolute form and `*` are refused before any routing; a doubled slash is no route (it is not read as the host or as acme's path).
    for (const [target, status] of [
      ['http://evil/v1/tenants/acme/audit', 400],
      ['http://evil/v1/tenants/globex/audit', 400],
      ['*', 400],
      ['//evil/v1/tenants/acme/audit', 404],
      ['//v1/tenants/acme/audit', 404],
      ['/v1/tenants//acme/audit', 404],
    ] as const) {
      const answer = await raw(`GET ${target} HTTP/1.1\r\nHost: router\r\nAuthorization: Bearer ${acmeAuditor}\r\nConnection: close\r\n\r\n`);
      expect(statusOf(answer), `${target}: ${answer}`).toBe(status);
      expect(typeof JSON.parse(bodyOf(answer)).error, answer).toBe('string');
    }
    expect(await writes()).toBe(before);
  });

  it('refuses NUL, control bytes and lone surrogates in headers, agent keys and JSON bodies', async () => {
    const before = await writes();
    const nulHeader = await raw(`GET /v1/tenants/acme/audit HTTP/1.1\r\nHost: router\r\nAuthorization: Bearer a\u0000b\r\nConnection: close\r\n\r\n`);
    expect(statusOf(nulHeader)).toBeGreaterThanOrEqual(400);
    expect(statusOf(nulHeader)).toBeLessThan(500);
    // An agent key whose tenant part is no tenant id: the cell checks the key and refuses it.
    for (const tenant of ['ac\u00ffme', 'ACME', 'a b']) {
      const agent = await raw(
        Buffer.from(`GET /v1/agent/calls HTTP/1.1\r\nHost: router\r\nAuthorization: Bearer ak.${tenant}.00ff.secret\r\nConnection: close\r\n\r\n`, 'latin1'),
      );
      expect(statusOf(agent), agent).toBeGreaterThanOrEqual(400);
      expect(statusOf(agent), agent).toBeLessThan(500);
    }
    for (const id of ['ac\\u0000me', '\\u0000', '\\ud800', 'acme\\udc00', 'Acme', '']) {
      refused(await send('POST', '/v1/tenants', { auth: ADMIN_KEY, body: `{"id":"${id}"}` }), 400);
      refused(await send('POST', '/v1/tenants', { auth: ADMIN_KEY, body: `{"id":"${id}","database":"db2"}` }), 400);
    }
    refused(await send('POST', '/v1/tenants', { auth: ADMIN_KEY, body: '{"id":"fresh","database":"db\\u0000"}' }), 400);
    refused(await send('POST', '/v1/tenants', { auth: ADMIN_KEY, body: '{"id":"fresh","database":"\\ud800"}' }), 400);
    refused(await send('POST', '/v1/tenants/acme/move', { auth: ADMIN_KEY, body: '{"to":"db\\u0000"}' }), 400);
    refused(await send('POST', '/v1/tenants/acme/move', { auth: ADMIN_KEY, body: '{"to":"\\udc00"}' }), 400);
    refused(
      await send('POST', '/v1/tenants/acme/move', { auth: ADMIN_KEY, body: Buffer.from([0x7b, 0x22, 0x74, 0x6f, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]) }),
      400,
    );
    refused(await send('POST', '/v1/tenants/acme/auditor-keys', { auth: ADMIN_KEY, body: '{"label":"\\u0000"}' }), 400);
    expect(await writes()).toBe(before);
  });

  it('refuses JSON nested 10,000 deep and bodies far over the limit on tenant creation and moves', async () => {
    const before = await writes();
    const deep = '['.repeat(10_000) + ']'.repeat(10_000);
    const deepObject = '{"id":'.repeat(10_000) + '"x"' + '}'.repeat(10_000);
    for (const route of ['/v1/tenants', '/v1/tenants/acme/move']) {
      refused(await send('POST', route, { auth: ADMIN_KEY, body: deep }));
      refused(await send('POST', route, { auth: ADMIN_KEY, body: deepObject }));
      refused(await send('POST', route, { auth: ADMIN_KEY, body: '{"to":' + deep + ',"id":' + deep + '}' }));
      // A good id (and a good database) beside a deep or ill-formed field: the cell refuses the field; nothing is placed.
      refused(
        await send('POST', route, { auth: ADMIN_KEY, body: '{"id":"deep","to":"db2","database":"db2","x":' + deep + '}' }),
        route === '/v1/tenants' ? 400 : 413,
      );
      refused(await send('POST', route, { auth: ADMIN_KEY, body: '{"id":"lone","to":"db2","database":"db2","x":"\\ud800\\u0000"}' }), 400);
      const huge = JSON.stringify({ id: 'huge', to: 'db2', pad: 'x'.repeat(8 * 1024 * 1024) });
      const over = await raw(
        `POST ${route} HTTP/1.1\r\nHost: router\r\nAuthorization: Bearer ${ADMIN_KEY}\r\nContent-Type: application/json\r\nContent-Length: ${huge.length}\r\nConnection: close\r\n\r\n${huge}`,
      );
      expect(statusOf(over), over.slice(0, 400)).toBe(413);
      expect(JSON.parse(bodyOf(over)).error).toBe('too_large');
    }
    expect(await writes()).toBe(before);
    // After all of it the router still answers each tenant from its own database.
    expect((await svc.admin('GET', '/v1/tenants/acme')).body.database).toBe('db1');
    expect((await svc.admin('GET', '/v1/tenants/globex')).body.database).toBe('db2');
  });
});
