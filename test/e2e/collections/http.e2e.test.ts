import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresKeystore } from '../../../adapters/keys/keystore.ts';
import type { AgentRecordPutData } from '../../../domain/collections/events.ts';
import { createRecords } from '../../../sdk/records.ts';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/service.ts';
import { execFile } from 'node:child_process';

let service: TestService;
let key: string;
beforeAll(async () => {
  service = await startTestService();
  expect((await service.admin('POST', '/v1/tenants', { id: 'acme' })).status).toBe(201);
  key = ((await service.admin('POST', '/v1/tenants/acme/agent-keys', { agent: 'seller-bot' })).body as { key: string }).key;
}, 120_000);
afterAll(async () => {
  await service?.stop();
});

const call = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${service.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return {
    status: res.status,
    text,
    body: (() => {
      try {
        return JSON.parse(text) as any;
      } catch {
        return text;
      }
    })(),
  };
};

describe('agent records over HTTP', () => {
  it('answers the calls of SPEC §12 in their shapes, and every refusal is a 4xx records: message that writes nothing', async () => {
    expect((await call('PUT', '/v1/agent/collections', { collections: { questions: { people: ['buyer'], fields: ['status'] }, notes: {} } })).body).toEqual({
      collections: ['questions', 'notes'],
    });
    expect((await call('GET', '/v1/agent/collections')).body).toEqual({ collections: ['questions', 'notes'] });
    const put = await call('PUT', '/v1/agent/records/questions/q1', { value: { buyer: 'maria', status: 'waiting' } });
    expect(put.body).toEqual({ id: 'q1', createdAt: expect.any(Number), updatedAt: put.body.createdAt });
    expect((await call('GET', '/v1/agent/records/questions/q1')).body).toEqual({
      value: { buyer: 'maria', status: 'waiting' },
      createdAt: put.body.createdAt,
      updatedAt: put.body.updatedAt,
    });
    expect((await call('GET', '/v1/agent/records/questions/none')).body).toEqual({
      error: 'not_found',
      what: 'record',
      message: 'records: no record "none" in questions: put it first, or check the id',
    });
    expect((await call('POST', '/v1/agent/records/questions/query', { where: { status: 'waiting' } })).body.entries).toHaveLength(1);
    const before = await service.lastPosition();
    for (const [method, path, body, status, message] of [
      [
        'PUT',
        '/v1/agent/records/orders/o1',
        { value: {} },
        404,
        'records: no collection named orders: declare it first: PUT /v1/agent/collections with {"collections": {"orders": {"people": [], "fields": []}}}',
      ],
      ['PUT', '/v1/agent/records/questions/q2', { value: [1] }, 400, 'records: value is not a JSON object: put a plain object such as { "status": "waiting" }'],
      ['POST', '/v1/agent/records/questions/query', { where: { askedAt: 1 } }, 400, 'records: questions cannot be queried by askedAt: declare it in fields'],
      ['POST', '/v1/agent/records/questions/query', { limit: 101 }, 400, 'records: limit 101 is out of range: ask for 1 to 100 entries and page with after'],
      [
        'PUT',
        '/v1/agent/collections',
        { collections: { 'bad name': {} } },
        400,
        'records: collection name "bad name" is not allowed: start with a letter, then up to 63 letters, digits, - or _',
      ],
    ] as const) {
      const r = await call(method, path, body);
      expect([r.status, r.body.message]).toEqual([status, message]);
    }
    expect(await service.lastPosition()).toBe(before);
    expect((await call('DELETE', '/v1/agent/records/questions/q1')).body).toEqual({ deleted: true });
    expect((await call('DELETE', '/v1/agent/records/questions/q1')).body).toEqual({ deleted: false });
  });

  it('get, query and export append read-audit events naming the ids, never the values, and they are in the audit stream', async () => {
    const r = createRecords({ url: service.url, key, collections: { audited: { fields: ['s'] } } });
    await r.put('audited', 'a1', { s: 'x', secret: 'value-that-is-never-audited' });
    await r.get('audited', 'a1');
    await r.query('audited', { s: 'x' });
    for await (const _ of r.export());
    await service.runner.catchUp();
    const res = await service.admin('GET', '/v1/tenants/acme/audit?kind=agent_read');
    expect(res.status).toBe(200);
    const text = typeof res.body === 'string' ? res.body : JSON.stringify(res.body);
    const entries = text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { op: string; agent: string; agent_records: unknown[] });
    expect(entries.filter((e) => e.agent === 'seller-bot').map((e) => [e.op, e.agent_records])).toEqual(
      expect.arrayContaining([
        ['get', [{ collection: 'audited', id: 'a1' }]],
        ['query', [{ collection: 'audited', id: 'a1' }]],
        ['export', expect.arrayContaining([{ collection: 'audited', id: 'a1' }])],
      ]),
    );
    expect(text).not.toContain('value-that-is-never-audited');
  });

  it('after forget, no value of the forgotten records is readable: get, query, export show none, the log never held the value in plain text, and its sealed copy no longer opens', async () => {
    const r = createRecords({ url: service.url, key, collections: { people: { people: ['who'] } } });
    const secret = `forget-me-${Date.now()}`;
    await r.put('people', 'p1', { who: 'phone:+15550100111', note: secret });
    await r.put('people', 'p2', { who: 'someone-else', mentions: 'phone:+15550100111' });
    expect(await r.forgetPerson('+15550100111')).toBe(1);
    expect(await r.get('people', 'p1')).toBeNull();
    expect((await r.query('people')).map((e) => e.id)).toEqual(['p2']);
    const exported = [];
    for await (const e of r.export()) exported.push(e.id);
    expect(exported).not.toContain('p1');
    const { rows } = await service.pool.query<{ n: string }>("SELECT count(*) AS n FROM custodian_events WHERE data::text LIKE '%' || $1 || '%'", [secret]);
    expect(Number(rows[0]!.n)).toBe(0);
    // Crypto-shredding: the sealed value the log still holds no longer opens with the service's keys.
    const events = await service.store.readStream('agent:acme:seller-bot');
    const putP1 = events.find((e) => e.type === 'AgentRecordPut' && (e.data as { id: string }).id === 'p1')!.data as AgentRecordPutData;
    const putP2 = events.find((e) => e.type === 'AgentRecordPut' && (e.data as { id: string }).id === 'p2')!.data as AgentRecordPutData;
    const keys = await postgresKeystore(service.pool, service.masterKey);
    const ctx = (d: AgentRecordPutData) => ({
      tenant: 'acme',
      plugin: 'agent:seller-bot',
      scope: d.collection,
      key: `${d.id}\n${d.created_ms}`,
      version: d.seq,
      data_subject: null,
    });
    expect(await keys.open(ctx(putP1), 'body', putP1.value)).toBeNull();
    expect(JSON.parse((await keys.open(ctx(putP2), 'body', putP2.value))!)).toEqual({ who: 'someone-else', mentions: 'phone:+15550100111' });
  });

  it('custodian records export prints JSON Lines on stdout and the count on stderr; exit 1 for a usage error or an unreachable service', async () => {
    const r = createRecords({ url: service.url, key, collections: { cli: {} } });
    await r.put('cli', 'c1', { n: 1 });
    const run = (args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(
          'node',
          ['bin/custodian.js', 'records', 'export', ...args],
          { env: { ...process.env, CUSTODIAN_ADMIN_KEY: ADMIN_KEY } },
          (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
      });
    const ok = await run(['--tenant', 'acme', '--agent', 'seller-bot', '--url', service.url]);
    expect(ok.code).toBe(0);
    const lines = ok.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { collection: string; id: string });
    expect(lines).toContainEqual(expect.objectContaining({ collection: 'cli', id: 'c1', value: { n: 1 } }));
    expect(ok.stderr).toBe(`Exported ${lines.length} records.\n`);
    expect((await run(['--tenant', 'acme'])).code).toBe(1);
    const down = await run(['--tenant', 'acme', '--agent', 'seller-bot', '--url', 'http://127.0.0.1:1']);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/^custodian: cannot reach the service at http:\/\/127.0.0.1:1 .*--url/);
  }, 60_000);
});
