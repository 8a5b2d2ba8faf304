import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../support/service.ts';
import { snapshotWritesSettled } from '../../../queries/snapshot-write.ts';

/**
 * A cold instance starts an agent's records from the agent's MACed snapshot and the log's
 * events after it: puts and deletes made on two instances past the snapshot are all in its
 * answers, and a snapshot moved in its row is not used.
 */
let a: TestService;
let b: TestService;
let key: string;
beforeAll(async () => {
  a = await startTestService();
  b = await startTestService({ shareWith: a });
  expect((await a.admin('POST', '/v1/tenants', { id: 'acme' })).status).toBe(201);
  key = ((await a.admin('POST', '/v1/tenants/acme/agent-keys', { agent: 'seller-bot' })).body as { key: string }).key;
}, 120_000);
afterAll(async () => {
  await b?.stop();
  await a?.stop();
});

const call = async (svc: TestService, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${svc.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as any };
};
const waiting = async (svc: TestService) =>
  ((await call(svc, 'POST', '/v1/agent/records/questions/query', { where: { status: 'waiting' }, limit: 100 })).body.entries as { id: string }[])
    .map((e) => e.id)
    .sort();

describe("a cold instance's agent records", () => {
  it('are its snapshot caught up with the log: every put and delete made on two instances past the snapshot answers; a moved snapshot is not used', async () => {
    expect((await call(a, 'PUT', '/v1/agent/collections', { collections: { questions: { people: ['buyer'], fields: ['status'] } } })).status).toBe(200);
    for (let i = 0; i < 520; i++)
      expect((await call(a, 'PUT', `/v1/agent/records/questions/q${i}`, { value: { status: i < 60 ? 'waiting' : 'answered' } })).status).toBe(200);
    const snapshotAt = async () =>
      Number(
        (await a.pool.query<{ r: string }>(`SELECT revision AS r FROM custodian_snapshots WHERE stream LIKE 'agent:acme:%' AND stream NOT LIKE '%#%'`)).rows[0]
          ?.r ?? -1,
      );
    // Written after the answer that took it: every write scheduled so far has ended.
    await snapshotWritesSettled();
    expect(await snapshotAt()).toBeGreaterThanOrEqual(499);
    // Past the snapshot, on both instances: two answered, two deleted, one new.
    await Promise.all([
      call(b, 'PUT', '/v1/agent/records/questions/q0', { value: { status: 'answered' } }),
      call(a, 'PUT', '/v1/agent/records/questions/q1', { value: { status: 'answered' } }),
      call(b, 'DELETE', '/v1/agent/records/questions/q2'),
      call(a, 'DELETE', '/v1/agent/records/questions/q3'),
      call(b, 'PUT', '/v1/agent/records/questions/new', { value: { status: 'waiting' } }),
    ]);
    const expected = [...Array.from({ length: 56 }, (_, i) => `q${i + 4}`), 'new'].sort();
    expect(await waiting(a)).toEqual(expected);

    const c = await startTestService({ shareWith: a });
    try {
      expect(await waiting(c)).toEqual(expected);
    } finally {
      await c.stop();
    }
    // The snapshot's row moved past the events after it: were it used, they would never be read.
    await a.pool.query(`UPDATE custodian_snapshots SET revision = revision + 1000 WHERE stream LIKE 'agent:acme:%' AND stream NOT LIKE '%#%'`);
    const d = await startTestService({ shareWith: a });
    try {
      expect(await waiting(d)).toEqual(expected);
    } finally {
      await d.stop();
    }
  });
});
