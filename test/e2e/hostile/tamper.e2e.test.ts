import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ticketHash } from '../../../domain/shared/hash.ts';
import { chainVerifies } from '../../../domain/envelopes/block.ts';
import { envelopeMacs } from '../../../adapters/keys/envelope-keys.ts';
import { postgresReadModelStore } from '../../../adapters/postgres/read-model-store.ts';
import { callContext } from '../../../queries/call-context.ts';
import { logFence } from '../../../queries/fence.ts';
import { caller, records, type Caller } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * Issue 11 item 2: the fence trusts the event log, never a read model's copy. Every test
 * holds a live ticket that works, edits the database as an attacker with SQL access would,
 * and expects that ticket's very next put and get to be refused, writing nothing.
 */
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
  await svc.admin('POST', '/v1/tenants', { id: 'acme' });
  await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] });
});
afterAll(async () => svc?.stop());

const put = (c: Caller, key: string) => c.rec({ op: 'put', scope: 'tenant', record_key: key, body: { text: 'hello' }, expect: 0 });
const get = (c: Caller, key: string) => c.rec({ op: 'get', scope: 'tenant', record_key: key });

/** A live ticket: one put answered 200 and read back. */
const live = async (job: string): Promise<Caller> => {
  const c = await caller(svc, 'acme', { job });
  expect((await put(c, job)).status).toBe(200);
  expect((await get(c, job)).status).toBe(200);
  return c;
};

const expectRefused = async (c: Caller) => {
  const before = await svc.lastPosition();
  const wrote = await put(c, `${c.job}-2`);
  expect(wrote).toMatchObject({ status: 403, body: { error: 'revoked' } });
  const read = await get(c, c.job);
  expect(read).toMatchObject({ status: 403, body: { error: 'revoked' } });
  expect(read.body.record).toBeUndefined();
  expect(await svc.lastPosition()).toBe(before);
};

/** Replaces the character at `at` of a stored string with a different one: one byte flipped. */
const flipSql = (path: string, at: number) =>
  `UPDATE custodian_events
      SET data = jsonb_set(data, '${path}', to_jsonb(overlay(data #>> '${path}' PLACING
                   CASE WHEN substr(data #>> '${path}', ${at + 1}, 1) = 'a' THEN 'b' ELSE 'a' END FROM ${at + 1} FOR 1)))
    WHERE stream = $1 AND type = 'EnvelopeBlockAppended'`;

describe('a tampered envelope block in the event log', () => {
  it('refuses the live ticket on its next put and get when one byte of the block changes', async () => {
    const c = await live('tamper-block');
    const { rowCount } = await svc.pool.query(flipSql('{signed,block,subject}', 0), ['job:acme:tamper-block']);
    expect(rowCount).toBe(1);
    await expectRefused(c);
  });

  it('refuses the live ticket on its next put and get when one byte of the MAC changes', async () => {
    const c = await live('tamper-mac');
    const { rowCount } = await svc.pool.query(flipSql('{signed,mac}', 7), ['job:acme:tamper-mac']);
    expect(rowCount).toBe(1);
    await expectRefused(c);
  });

  it('leaves an untouched job working', async () => {
    const c = await live('untouched');
    expect((await put(c, 'untouched-2')).status).toBe(200);
  });
});

describe('read models a tamperer edits do not authorise', () => {
  it('an ended job revived in rm_jobs and rm_calls stays fenced: the log says it ended', async () => {
    const c = await live('revived');
    expect((await svc.admin('POST', '/v1/tenants/acme/jobs/revived/end')).status).toBe(200);
    expect((await put(c, 'revived-2')).status).toBe(401);
    await svc.pool.query(`UPDATE rm_jobs SET status = 'running' WHERE tenant = 'acme' AND id = 'revived'`);
    await svc.pool.query(`UPDATE rm_calls SET ended_ms = NULL WHERE tenant = 'acme' AND job = 'revived'`);
    await expectRefused(c);
  });

  it('a ticket hash swapped into rm_calls is refused: the log minted another ticket for that call', async () => {
    const victim = await live('victim');
    const forged = 'forged-ticket-0123456789abcdefghijklmnopqrstuv';
    await svc.pool.query(`UPDATE rm_calls SET ticket_hash = $1 WHERE call = $2`, [ticketHash(forged), victim.call]);
    const before = await svc.lastPosition();
    expect(await records(svc, forged, { op: 'get', scope: 'tenant', record_key: 'victim' })).toMatchObject({ status: 403, body: { error: 'revoked' } });
    expect(await svc.lastPosition()).toBe(before);
  });

  it("a label removed from rm_jobs still labels the job's writes: labels come from the log", async () => {
    const c = await caller(svc, 'acme', { job: 'labelled', labels: ['red'] });
    const labelsOfLastWrite = async () =>
      (
        await svc.pool.query<{ labels: string[] }>(
          `SELECT data->'labels' AS labels FROM custodian_events WHERE type = 'RecordVersionWritten' ORDER BY position DESC LIMIT 1`,
        )
      ).rows[0]!.labels;
    expect((await put(c, 'labelled-1')).status).toBe(200);
    expect(await labelsOfLastWrite()).toEqual(['red']);
    await svc.pool.query(`UPDATE rm_jobs SET labels = '[]'::jsonb WHERE tenant = 'acme' AND id = 'labelled'`);
    expect((await put(c, 'labelled-2')).status).toBe(200);
    expect(await labelsOfLastWrite()).toEqual(['red']);
  });
});

describe("the fence caches the verified chain by the stream's position", () => {
  it('verifies once while the job stream holds still, not again for an append, again for an edit in place', async () => {
    const c = await live('cached');
    const macs = envelopeMacs(svc.masterKey);
    const fence = logFence({ store: svc.store, chainVerifies: (t, chain) => chainVerifies(chain, macs(t)), now: () => svc.clock.now() });
    const found = (await callContext(postgresReadModelStore(svc.pool), c.ticket))!;
    for (let i = 0; i < 5; i++) expect(await fence.admit(found, c.ticket)).toMatchObject({ job: 'cached', status: 'running' });
    expect(fence.verifications()).toBe(1);
    // Another call minted: the stream moved, the chain did not.
    const other = await svc.admin('POST', '/v1/tenants/acme/jobs/cached/calls', { function: 'save' });
    expect(other.status).toBe(201);
    expect(await fence.admit(found, c.ticket)).not.toBeNull();
    expect(fence.verifications()).toBe(1);
    // The wrong ticket for this call: refused without verifying anything again.
    expect(await fence.admit(found, 'not-the-ticket')).toBeNull();
    await svc.pool.query(flipSql('{signed,block,purpose}', 3), ['job:acme:cached']);
    expect(await fence.admit(found, c.ticket)).toBeNull();
    expect(fence.verifications()).toBe(2);
  });
});
