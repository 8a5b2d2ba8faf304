import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, records, type Caller } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * Red-team pass over batched record reads (issue 14, queries/versions-batch.ts): concurrent
 * gets share one statement. Each must get its own record's rows only — never another
 * tenant's, plugin's, scope's or key's, never another agent's scope — and a hostile read in
 * the crowd must be its own 4xx without failing the reads it would have shared a batch with.
 */
let a: TestService;
beforeAll(async () => {
  a = await startTestService();
  for (const t of ['t1', 't2']) {
    await a.admin('POST', '/v1/tenants', { id: t });
    await a.admin('POST', `/v1/tenants/${t}/plugins`, { name: 'notes', functions: ['save'], agents: ['scribe', 'helper'] });
    await a.admin('POST', `/v1/tenants/${t}/plugins`, { name: 'other', functions: ['save'], agents: ['scribe'] });
  }
  const put = async (c: Caller, scope: string, key: string, body: unknown) =>
    expect((await c.rec({ op: 'put', scope, record_key: key, body, expect: 0 })).status).toBe(200);
  for (const t of ['t1', 't2']) {
    const scribe = await caller(a, t);
    await put(scribe, 'tenant', 'shared', { t, plugin: 'notes', scope: 'tenant' });
    await put(scribe, 'project:p', 'shared', { t, plugin: 'notes', scope: 'project:p' });
    await put(scribe, 'agent:scribe', 'shared', { t, plugin: 'notes', scope: 'agent:scribe' });
    const other = await caller(a, t, { plugin: 'other' });
    await put(other, 'tenant', 'shared', { t, plugin: 'other', scope: 'tenant' });
  }
});
afterAll(async () => {
  await a?.stop();
});

interface Read {
  readonly tenant: string;
  readonly plugin: string;
  readonly agent: string;
  readonly scope: string;
  readonly key: string;
}

const reads: Read[] = [];
for (const tenant of ['t1', 't2'])
  for (const [plugin, agent] of [
    ['notes', 'scribe'],
    ['notes', 'helper'],
    ['other', 'scribe'],
  ] as const)
    for (const scope of ['tenant', 'project:p', 'agent:scribe'])
      for (const key of ['shared', 'absent', 'x'.repeat(200), 'x'.repeat(201), 'nul\u0000', 'lone\ud800']) reads.push({ tenant, plugin, agent, scope, key });

/** What the get must answer: the record this caller may see under that address, or nothing, or a 400. */
const expected = (r: Read) => {
  if (r.key.length > 200 || r.key.includes('\u0000') || /[\ud800-\udfff]/.test(r.key)) return { status: 400 };
  const exists = r.key === 'shared' && (r.plugin === 'notes' || r.scope === 'tenant');
  if (r.scope === 'agent:scribe' && r.agent !== 'scribe') return { status: 'refused-or-empty' as const };
  return exists ? { status: 200, body: { t: r.tenant, plugin: r.plugin, scope: r.scope } } : { status: 200, body: null };
};

describe('gets of every address at once, from many calls of two tenants and two plugins', () => {
  it('answers each its own record or nothing, and each hostile key its own 400', async () => {
    // A call answers at most 64 requests: one call per 20 reads, per tenant, plugin and agent.
    const callers = new Map<string, Caller[]>();
    for (const tenant of ['t1', 't2'])
      for (const [plugin, agent] of [
        ['notes', 'scribe'],
        ['notes', 'helper'],
        ['other', 'scribe'],
      ])
        callers.set(`${tenant}/${plugin}/${agent}`, await Promise.all(Array.from({ length: 3 }, () => caller(a, tenant, { plugin, agent }))));
    const rounds = 3;
    const answers = await Promise.all(
      Array.from({ length: rounds }, (_, round) =>
        reads.map(async (r, i) => {
          const cs = callers.get(`${r.tenant}/${r.plugin}/${r.agent}`)!;
          const c = cs[(i + round) % cs.length]!;
          return { r, answer: await records(a, c.ticket, { op: 'get', scope: r.scope, record_key: r.key }) };
        }),
      ).flat(),
    );
    expect(answers.filter(({ answer }) => answer.status >= 500)).toEqual([]);
    let shown = 0;
    for (const { r, answer } of answers) {
      const want = expected(r);
      const where = `${r.tenant}/${r.plugin}/${r.agent} ${r.scope} ${JSON.stringify(r.key.slice(0, 12))}`;
      if (want.status === 'refused-or-empty') {
        expect(answer.body.record, where).toBeUndefined();
        continue;
      }
      expect(answer.status, where).toBe(want.status);
      if (want.status === 400) continue;
      if (want.body === null) expect(answer.body.record, where).toBeUndefined();
      else {
        shown++;
        expect(answer.body.record?.body, where).toEqual(want.body);
      }
    }
    // Per tenant and round: notes/scribe its 3 records, notes/helper 2 (not the scribe agent scope), other/scribe 1.
    expect(shown).toBe(rounds * 2 * (3 + 2 + 1));
  });
});
