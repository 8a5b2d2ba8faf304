import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ticketHash } from '../../../domain/shared/hash.ts';
import { caller, records, warm, type Caller } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * Red-team pass over the fence's refusal codes (issue 14, `queries/fence.ts` `judge`): a call
 * the log shows ended is a dead ticket (401 ticket), but a fenced job (expired, revoked,
 * stopped) stays 403 revoked (SPEC §5 check 1, §6) whatever became of the call, on the
 * records route and the files routes alike, cold and warm.
 */
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ testClock: true });
  await svc.admin('POST', '/v1/tenants', { id: 'acme' });
  await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] });
});
afterAll(async () => {
  await svc?.stop();
});

/** Mints the step again: the original call ends, its ticket is dead. */
const retry = async (c: Caller): Promise<Caller> => {
  const minted = await svc.admin('POST', `/v1/tenants/acme/jobs/${c.job}/calls`, { function: 'save', step: 1 });
  expect(minted.status).toBe(201);
  const ticket: string = minted.body._meta['oz0/records'].ticket;
  return { ticket, call: minted.body.call.id, job: c.job, idempotencyKey: c.idempotencyKey, rec: (body) => records(svc, ticket, body) };
};

const fileGet = async (ticket: string) => {
  const res = await fetch(`${svc.url}/v1/files/${'0'.repeat(64)}`, { headers: { authorization: `Bearer ${ticket}` } });
  return { status: res.status, error: ((await res.json().catch(() => ({}))) as any).error };
};
const filePut = async (ticket: string) => {
  const res = await fetch(`${svc.url}/v1/files`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ticket}`, 'content-type': 'application/octet-stream' },
    body: new Uint8Array([1, 2, 3]),
  });
  return { status: res.status, error: ((await res.json().catch(() => ({}))) as any).error };
};

/** What each route answers the ticket: records list and put, files get and put. */
const answers = async (ticket: string) => {
  const list = await records(svc, ticket, { op: 'list' });
  const put = await records(svc, ticket, { op: 'put', scope: 'project:f', record_key: `k-${ticket.slice(-8)}`, body: {}, expect: 0 });
  return {
    list: [list.status, list.body.error],
    put: [put.status, put.body.error],
    fileGet: Object.values(await fileGet(ticket)),
    filePut: Object.values(await filePut(ticket)),
  };
};
const everywhere = (status: number, error: string) => ({ list: [status, error], put: [status, error], fileGet: [status, error], filePut: [status, error] });

let n = 0;
describe('a call ended by a retried step', () => {
  it.each([false, true])('of a running job is a dead ticket on every route (warm: %s)', async (warmed) => {
    const orig = await caller(svc, 'acme', { step: 1, job: `live-${++n}` });
    if (warmed) await warm(svc, orig);
    await retry(orig);
    expect(await answers(orig.ticket)).toEqual(everywhere(401, 'ticket'));
  });

  it.each([false, true])(
    'of a job past its expiry: the live retry is fenced (403 revoked) and the dead original answers alike on every route (warm: %s)',
    async (warmed) => {
      const orig = await caller(svc, 'acme', { step: 1, job: `short-${++n}`, start: { timeout_ms: 60_000 } });
      if (warmed) await warm(svc, orig);
      const again = await retry(orig);
      if (warmed) await warm(svc, again);
      await svc.admin('POST', '/v1/_clock', { advance_ms: 120_000 });
      expect(await answers(again.ticket)).toEqual(everywhere(403, 'revoked'));
      // The read model no longer finds an ended call (queries/call-context.ts), and the log's
      // ended call is judged before the fence: SPEC check 1 lists "call alive" before "not fenced".
      expect(await answers(orig.ticket)).toEqual(everywhere(401, 'ticket'));
    },
  );

  it.each([false, true])('of a job a revocation reaches: the live retry is fenced (403 revoked) on every route (warm: %s)', async (warmed) => {
    const agent = `ag${++n}`;
    expect((await svc.admin('POST', '/v1/tenants/acme/plugins', { name: `p${n}`, functions: ['save'], agents: [agent] })).status).toBeLessThan(300);
    const orig = await caller(svc, 'acme', { step: 1, agent, plugin: `p${n}`, job: `rev-${n}` });
    if (warmed) await warm(svc, orig);
    const again = await retry(orig);
    if (warmed) await warm(svc, again);
    const revoked = await svc.admin('POST', '/v1/tenants/acme/revocations', { revocations: [{ kind: 'kill_agent', agent: `p${n}/${agent}` }] });
    expect(revoked.body.stopped).toEqual([orig.job]);
    expect(await answers(again.ticket)).toEqual(everywhere(403, 'revoked'));
    expect(await answers(orig.ticket)).toEqual(everywhere(401, 'ticket'));
  });
});

describe('a read model edited to name a ticket the log never minted', () => {
  it.each([false, true])('is fenced, 403 revoked, on every route, never a dead ticket (warm: %s)', async (warmed) => {
    const c = await caller(svc, 'acme', { step: 1, job: `forged-${++n}` });
    if (warmed) await warm(svc, c);
    const forged = `forged-ticket-${n}-0123456789abcdef`;
    const edited = await svc.pool.query('UPDATE rm_calls SET ticket_hash = $1 WHERE call = $2 AND ticket_hash = $3', [
      ticketHash(forged),
      c.call,
      ticketHash(c.ticket),
    ]);
    expect(edited.rowCount).toBe(1);
    expect(await answers(forged)).toEqual(everywhere(403, 'revoked'));
  });
});
