import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../support/service.ts';
import { snapshotWritesSettled } from '../../../queries/snapshot-write.ts';

/**
 * Someone with SQL access to the snapshot table (not the keys) puts back an agent's older
 * snapshot row — valid under its MAC, taken before a person was forgotten. A cold instance
 * starts from it and must catch it up with every event after it: the forgotten person's
 * records stay gone for get, query, export and the record count, and a put naming them with a
 * `started_ms` before the forget is still refused, exactly as a full replay of the log decides.
 */
let a: TestService;
const cold: TestService[] = [];
let key: string;
beforeAll(async () => {
  a = await startTestService();
  expect((await a.admin('POST', '/v1/tenants', { id: 'acme' })).status).toBe(201);
  key = ((await a.admin('POST', '/v1/tenants/acme/agent-keys', { agent: 'bot' })).body as { key: string }).key;
}, 120_000);
afterAll(async () => {
  for (const c of cold) await c.stop();
  await a?.stop();
});

const call = async (svc: TestService, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${svc.url}${path}`, {
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
const snapshotRow = async () =>
  (
    await a.pool.query<{ stream: string; revision: number; state: string }>(
      // The head's row (its parts are rows of their own, `agent:acme:bot#…`).
      `SELECT stream, revision::int AS revision, state FROM custodian_snapshots WHERE stream = 'agent:acme:bot'`,
    )
  ).rows[0];
const snapshotPast = async (revision: number) => {
  // Written after the answer that took it: every write scheduled so far has ended.
  await snapshotWritesSettled();
  const row = await snapshotRow();
  if (row && row.revision >= revision) return row;
  throw new Error(`no agent snapshot at or past ${revision}`);
};
const puts = async (from: number, to: number, value: (i: number) => unknown) => {
  for (let i = from; i < to; i += 20)
    await Promise.all(
      Array.from({ length: Math.min(20, to - i) }, async (_, j) =>
        expect((await call(a, 'PUT', `/v1/agent/records/notes/n${i + j}`, { value: value(i + j) })).status).toBe(200),
      ),
    );
};

describe("an agent's older snapshot put back in its row", () => {
  it('is caught up with the log on a cold instance: a person forgotten after it stays forgotten', async () => {
    expect((await call(a, 'PUT', '/v1/agent/collections', { collections: { notes: { people: ['person'], fields: ['topic'] } } })).status).toBe(200);
    // 520 events: snapshots with maria's records in them. One is taken where a batch's append
    // lands 50 or more events after the last (a batch here is at most 20 puts), so the newest
    // is at revision 449 or later — not necessarily 499 or later, which depends on where the
    // batches fell.
    await puts(0, 519, (i) => ({ person: i % 10 === 0 ? 'maria' : `p${i}`, topic: 't' }));
    const older = await snapshotPast(449);
    const forgetAt = Date.now();
    const forgot = await call(a, 'POST', '/v1/agent/forget', { person: 'maria' });
    expect(forgot.body.deleted).toBeGreaterThanOrEqual(50);
    // Past the next snapshot, so the row holds a newer one before the older is put back.
    await puts(520, 1040, (i) => ({ person: `p${i}`, topic: 't' }));
    // (Snapshots every 50 events, taken where a batch's append lands: any newer head will do.)
    expect((await snapshotPast(older.revision + 1)).revision).toBeGreaterThan(older.revision);
    const replay = async () => {
      const c = await startTestService({ shareWith: a });
      cold.push(c);
      return {
        get: (await call(c, 'GET', '/v1/agent/records/notes/n0')).status,
        query: (await call(c, 'POST', '/v1/agent/records/notes/query', { where: { person: 'maria' } })).body.entries.length,
        exported: (await call(c, 'GET', '/v1/agent/export')).text.split('\n').filter((l) => l.includes('"maria"')).length,
        late: (await call(c, 'PUT', '/v1/agent/records/notes/late', { value: { person: 'maria' }, started_ms: forgetAt - 1 })).status,
      };
    };
    const asLogSays = { get: 404, query: 0, exported: 0, late: 409 };
    await a.pool.query('UPDATE custodian_snapshots SET revision = $2, state = $3 WHERE stream = $1', [older.stream, older.revision, older.state]);
    expect(await replay()).toEqual(asLogSays);
    // And with no snapshot at all: the same answers.
    await a.pool.query('DELETE FROM custodian_snapshots WHERE stream = $1', [older.stream]);
    expect(await replay()).toEqual(asLogSays);
  }, 240_000);
});
