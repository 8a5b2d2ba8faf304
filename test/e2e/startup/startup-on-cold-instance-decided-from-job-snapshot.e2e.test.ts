import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../support/service.ts';
import { snapshotWritesSettled } from '../../../queries/snapshot-write.ts';

/**
 * Start-up (prepare, then assemble) is a job command decided on the job commands' own path: on
 * an instance that has not folded a long job, it starts from the job's MACed snapshot and the
 * events after it, never from the job's first event, and answers as the warm instance would.
 */
let a: TestService;
const T = 'boot-cold';
const JOB = `job:${T}:long`;

beforeAll(async () => {
  a = await startTestService();
  await a.admin('POST', '/v1/tenants', { id: T, settings: { grants: { home: ['plugin:alpha'] } } });
  await a.admin('POST', `/v1/tenants/${T}/plugins`, { name: 'home', functions: ['work', 'boot'], agents: ['planner'], startup: 'boot' });
  await a.admin('POST', `/v1/tenants/${T}/plugins`, { name: 'alpha', functions: ['boot'], agents: ['a'], startup: 'boot' });
  expect((await a.admin('POST', `/v1/tenants/${T}/jobs`, { id: 'long', agent: 'planner', plugin: 'home', subject: 'user:ann', input: 'go' })).status).toBe(201);
});
afterAll(async () => a?.stop());

const snapshotRevision = async (svc: TestService) => {
  const { rows } = await svc.pool.query<{ revision: string }>('SELECT revision FROM custodian_snapshots WHERE stream = $1', [JOB]);
  return rows[0] ? Number(rows[0].revision) : -1;
};

describe('start-up on an instance that has not folded the job', () => {
  it('reads the job from after its snapshot, and mints and assembles as the warm instance does', async () => {
    // A long job: 150 calls, so its snapshot is past its start.
    for (let i = 0; i < 150; i++) expect((await a.admin('POST', `/v1/tenants/${T}/jobs/long/calls`, { function: 'work' })).status).toBe(201);
    // Written after the answer that took it: every write scheduled so far has ended.
    await snapshotWritesSettled();
    const at = await snapshotRevision(a);
    expect(at).toBeGreaterThanOrEqual(99);

    const c = await startTestService({ shareWith: a });
    const from: number[] = [];
    const read = c.store.readStream.bind(c.store);
    c.store.readStream = (stream, revision) => {
      if (stream === JOB) from.push(revision ?? 0);
      return read(stream, revision);
    };
    try {
      const prepared = await c.admin('POST', `/v1/tenants/${T}/jobs/long/startup`, { budget: 200 });
      expect(prepared.status).toBe(200);
      const plugins = prepared.body.plugins as { plugin: string; call: string }[];
      expect(plugins.map((p) => p.plugin)).toEqual(['home', 'alpha']);
      const assembled = await c.admin('POST', `/v1/tenants/${T}/jobs/long/startup/text`, {
        answers: plugins.map((p) => ({ plugin: p.plugin, entries: [{ text: `${p.plugin} says hello` }] })),
      });
      expect(assembled.status).toBe(200);
      expect(JSON.stringify(assembled.body)).toContain('home says hello');
      expect(from.length).toBeGreaterThan(0);
      expect(Math.min(...from)).toBeGreaterThan(0);
    } finally {
      await c.stop();
    }
  });
});
