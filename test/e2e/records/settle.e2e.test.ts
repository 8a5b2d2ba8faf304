import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * An answer that promises read models (a read that joined labels into its job: the job's next
 * request must see them) never leaves before they hold its events: when the projection runner
 * cannot catch up in time, the answer is an error, not a silent success.
 */
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ blocking: true });
  await svc.admin('POST', '/v1/tenants', { id: 'acme' });
  await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] });
});
afterAll(async () => {
  await svc?.stop();
});

describe('answers that wait for the runner', () => {
  it('a read that joins labels while the runner cannot move is 503 unavailable, with the job purpose', async () => {
    const writer = await caller(svc, 'acme', { input: 'p', labels: ['secret'] });
    expect((await writer.rec({ op: 'put', scope: 'tenant', record_key: 'n1', body: {}, expect: 0 })).status).toBe(200);
    const reader = await caller(svc, 'acme', { input: 'p' });
    const blocker = await svc.pool.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('SELECT name FROM custodian_checkpoints FOR UPDATE');
      const read = await reader.rec({ op: 'get', scope: 'tenant', record_key: 'n1' });
      expect(read).toMatchObject({ status: 503, body: { error: 'unavailable' } });
      expect(typeof read.body.job_purpose).toBe('string');
      expect(read.body.job_purpose.length).toBeGreaterThan(0);
    } finally {
      await blocker.query('ROLLBACK');
      blocker.release();
    }
    // Once the runner moves, the join is on the job.
    await svc.runner.catchUp();
    expect((await svc.admin('GET', `/v1/tenants/acme/jobs/${reader.job}`)).body.job.labels).toEqual(['secret']);
  }, 60_000);
});
