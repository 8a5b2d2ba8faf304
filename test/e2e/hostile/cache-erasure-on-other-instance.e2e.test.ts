import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, records, warm } from '../../support/records.ts';
import { type TestService } from '../../support/service.ts';
import { startPair, stopPair } from '../../support/pair.ts';

/**
 * Red-team pass over the call-context cache: an erasure of a job's data subject answered on
 * B while the job's ticket is warm on A. The warm ticket must answer as a cold call of the
 * same job on B (what the full admission decides).
 */
let a: TestService;
let b: TestService;
beforeAll(async () => ({ a, b } = await startPair({ person_memory: [{ agent: 'scribe', purpose: 'routine:r' }] })));
afterAll(() => stopPair({ a, b }));

let n = 0;
describe('an erasure on B of the subject of a job warm on A', () => {
  it.each(['put', 'get'] as const)('%s on A answers as a cold call of the job on B', async (op) => {
    const subject = `user:s${++n}`;
    const c = await caller(a, 'acme', { purpose: 'routine:r', data_subject: subject });
    const seed = await c.rec({ op: 'put', scope: 'agent:scribe', record_key: `p${n}`, body: { t: 1 }, expect: 0, subject_kind: 'person' });
    expect(seed.status).toBe(200);
    await warm(a, c);
    const cold = await a.admin('POST', `/v1/tenants/acme/jobs/${c.job}/calls`, { function: 'save' });
    const coldTicket: string = cold.body._meta['oz0/records'].ticket;
    expect((await b.admin('POST', '/v1/tenants/acme/erasures', { data_subject: subject })).status).toBeLessThan(300);
    const body = (key: string) =>
      op === 'put'
        ? { op, scope: 'agent:scribe', record_key: key, body: { t: 2 }, expect: 0, subject_kind: 'person' }
        : { op, scope: 'agent:scribe', record_key: `p${n}` };
    const onA = await records(a, c.ticket, body(`a${n}`));
    const onB = await records(b, coldTicket, body(`b${n}`));
    expect({ status: onA.status, error: onA.body.error, record: onA.body.record }).toEqual({
      status: onB.status,
      error: onB.body.error,
      record: onB.body.record,
    });
  });
});
