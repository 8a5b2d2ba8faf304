import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * Red-team pass over issue 12: a kill raced by starts of the killed agent. SPEC §6: "The
 * batch stops exactly the reached running jobs and returns a receipt"; a job that is not
 * running mints no call. Starts decided on the tenant before the kill but appended after it
 * carry the old epoch, so the fence refuses their records — yet they show `running`, mint
 * calls, and are missing from the signed receipt that claims to list what the kill stopped.
 */
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => svc?.stop());

describe('kill_agent racing starts of that agent', () => {
  it('leaves no job of the killed agent running, minting, or missing from the receipt', async () => {
    const escaped: string[] = [];
    // A few rounds: the interleaving is the machine's; any round that lets one through is the hole.
    for (let round = 0; round < 4 && escaped.length === 0; round++) {
      const t = `race-${round}`;
      expect((await svc.admin('POST', '/v1/tenants', { id: t })).status).toBe(201);
      expect((await svc.admin('POST', `/v1/tenants/${t}/plugins`, { name: 'notes', functions: ['save'], agents: ['scribe', 'helper'] })).status).toBe(201);
      const starts = Array.from({ length: 24 }, (_, i) =>
        svc.admin('POST', `/v1/tenants/${t}/jobs`, { id: `h${i}`, agent: 'helper', plugin: 'notes', subject: 's', input: 'x' }),
      );
      const kill = svc.admin('POST', `/v1/tenants/${t}/revocations`, { revocations: [{ kind: 'kill_agent', agent: 'notes/helper' }] });
      const [started, killed] = await Promise.all([Promise.all(starts), kill]);
      expect(killed.status).toBe(200);
      const stopped = new Set<string>(killed.body.stopped);
      for (const [i, s] of started.entries()) {
        if (s.status !== 201 && s.status !== 200) {
          expect(s.body.error).toBe('revoked');
          continue;
        }
        const job = `h${i}`;
        const shown = await svc.admin('GET', `/v1/tenants/${t}/jobs/${job}`);
        const minted = await svc.admin('POST', `/v1/tenants/${t}/jobs/${job}/calls`, { function: 'save' });
        if (!stopped.has(job) || shown.body.job.status === 'running' || minted.status === 201)
          escaped.push(`${t}/${job}: in receipt ${stopped.has(job)}, status ${shown.body.job.status}, mint ${minted.status}`);
      }
    }
    expect(escaped).toEqual([]);
  });
});
