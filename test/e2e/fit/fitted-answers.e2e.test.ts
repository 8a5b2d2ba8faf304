import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { weigh } from '../../../clients/typescript/src/fit/weigh.ts';
import { caller, type Caller } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

let svc: TestService;
let writer: Caller;

const text = (i: number) => `Note ${i} begins here. ${'It carries a long body of ordinary prose about the project. '.repeat(6)}`;

/** SPEC §13 "Fitted answers of the service": records history and list, audit replay, export. */
beforeAll(async () => {
  svc = await startTestService();
  await svc.admin('POST', '/v1/tenants', { id: 'acme' });
  await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] });
  writer = await caller(svc, 'acme', { input: 'fit' });
  for (let i = 1; i <= 6; i++) {
    const put = await writer.rec({ op: 'put', scope: 'tenant', record_key: `k${i}`, body: { text: text(i) }, expect: 0 });
    expect(put.status).toBe(200);
  }
  for (let v = 2; v <= 4; v++) {
    const put = await writer.rec({ op: 'put', scope: 'tenant', record_key: 'k1', body: { text: text(10 + v) }, expect: v - 1 });
    expect(put.status).toBe(200);
  }
  // The audit replay serves the lines already in the tree: the integrator runs after the answers.
  await svc.runner.catchUp();
});
afterAll(async () => svc?.stop());

const ndjson = (body: string) =>
  body
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));

describe('records list, fitted', () => {
  it('without view, budget or query the answer is as before (no fit field)', async () => {
    const res = await writer.rec({ op: 'list' });
    expect(res.status).toBe(200);
    expect(res.body.records).toHaveLength(6);
    expect(res.body.fit).toBeUndefined();
  });

  it('a budget that cuts keeps whole records, sets more and a next cursor that continues after the last one returned', async () => {
    const res = await writer.rec({ op: 'list', budget: 400 });
    expect(res.status).toBe(200);
    const got = res.body.records as { key: string; body: { text: string } }[];
    expect(got.length).toBeGreaterThan(0);
    expect(got.length).toBeLessThan(6);
    expect(got.every((r, i) => r.key === `k${i + 1}` && r.body.text.startsWith('Note'))).toBe(true);
    expect(res.body.more).toBe(true);
    expect(res.body.fit.view).toBe('full');
    expect(res.body.fit.budget).toBe(400);
    expect(res.body.fit.tokens).toBeLessThanOrEqual(400);
    expect(res.body.fit.tokens).toBe(weigh(JSON.stringify(res.body.records)));
    expect(res.body.fit.size).toBeGreaterThan(400);
    expect(res.body.fit.omitted).toContain('the budget of 400 tokens');

    const keys = got.map((r) => r.key);
    let cursor: string = res.body.next;
    for (let page = 0; page < 10 && keys.length < 6; page++) {
      const again = await writer.rec({ op: 'list', budget: 400, list: { cursor } });
      expect(again.status).toBe(200);
      keys.push(...again.body.records.map((r: { key: string }) => r.key));
      cursor = again.body.next;
    }
    expect(keys).toEqual(['k1', 'k2', 'k3', 'k4', 'k5', 'k6']);
  });

  it('view summary shows every record without its body', async () => {
    const res = await writer.rec({ op: 'list', view: 'summary' });
    expect(res.status).toBe(200);
    expect(res.body.fit.view).toBe('summary');
    expect(res.body.records).toHaveLength(6);
    expect(res.body.records[0].body).toBeUndefined();
    expect(res.body.records[0].body_keys).toEqual(['text']);
    expect(res.body.records[0].key).toBe('k1');
  });

  it('a budget too small for one record falls to the stub, which names the keys and the bound', async () => {
    const res = await writer.rec({ op: 'list', view: 'full', budget: 60 });
    expect(res.status).toBe(200);
    expect(res.body.fit.view).toBe('stub');
    expect(res.body.records).toEqual([]);
    expect(typeof res.body.outline).toBe('string');
    expect(res.body.fit.tokens).toBeLessThanOrEqual(60);
    expect(res.body.fit.omitted).toContain('The full view was too big for the budget of 60 tokens');
    expect(res.body.more).toBe(true);
  });

  it('a query names a key, <scope>/<key>, or positions in the page', async () => {
    const byKey = await writer.rec({ op: 'list', query: 'k3' });
    expect(byKey.body.fit.view).toBe('section');
    expect(byKey.body.records.map((r: { key: string }) => r.key)).toEqual(['k3']);
    const byScopeKey = await writer.rec({ op: 'list', query: 'tenant/k5' });
    expect(byScopeKey.body.records.map((r: { key: string }) => r.key)).toEqual(['k5']);
    const byRange = await writer.rec({ op: 'list', query: '2-4' });
    expect(byRange.body.records.map((r: { key: string }) => r.key)).toEqual(['k2', 'k3', 'k4']);
    expect(byRange.body.fit.omitted).toContain("matching '2-4'");
    const none = await writer.rec({ op: 'list', query: 'nope', view: 'section' });
    expect(none.body.fit.view).toBe('summary');
    expect(none.body.fit.omitted).toContain("No record matched 'nope'");
  });

  it('a wrong view or budget is 400 naming the field; on a put the parameters are unknown fields', async () => {
    const before = await svc.lastPosition();
    const view = await writer.rec({ op: 'list', view: 'everything' });
    expect(view.status).toBe(400);
    expect(view.body).toMatchObject({ error: 'invalid', field: 'view' });
    const budget = await writer.rec({ op: 'history', scope: 'tenant', record_key: 'k1', budget: -3 });
    expect(budget.status).toBe(400);
    expect(budget.body).toMatchObject({ error: 'invalid', field: 'budget' });
    const text = await writer.rec({ op: 'list', budget: '500' });
    expect(text.status).toBe(400);
    expect(text.body).toMatchObject({ error: 'invalid', field: 'budget' });
    const put = await writer.rec({ op: 'put', scope: 'tenant', record_key: 'k9', body: {}, expect: 0, view: 'full' });
    expect(put.status).toBe(400);
    expect(put.body).toMatchObject({ error: 'invalid', field: 'view' });
    expect(await svc.lastPosition()).toBeGreaterThanOrEqual(before); // reads are audited; the put wrote nothing:
    expect((await writer.rec({ op: 'get', scope: 'tenant', record_key: 'k9' })).body.record).toBeUndefined();
  });
});

describe('records history, fitted', () => {
  it('view stub names every version and how to ask for more', async () => {
    const res = await writer.rec({ op: 'history', scope: 'tenant', record_key: 'k1', view: 'stub' });
    expect(res.status).toBe(200);
    expect(res.body.fit.view).toBe('stub');
    expect(res.body.records).toEqual([]);
    expect(res.body.outline).toContain('4 versions');
    expect(res.body.outline).toContain('tenant/k1 v4');
    expect(res.body.outline).toContain('tenant/k1 v1');
  });

  it('a query is a version or a range of versions', async () => {
    const one = await writer.rec({ op: 'history', scope: 'tenant', record_key: 'k1', query: '2' });
    expect(one.body.records.map((r: { version: number }) => r.version)).toEqual([2]);
    const range = await writer.rec({ op: 'history', scope: 'tenant', record_key: 'k1', query: '1-3' });
    expect(range.body.records.map((r: { version: number }) => r.version)).toEqual([3, 2, 1]);
  });

  it('a budget that cuts keeps the newest versions whole and says how to read the older ones', async () => {
    const res = await writer.rec({ op: 'history', scope: 'tenant', record_key: 'k1', budget: 300 });
    expect(res.body.fit.view).toBe('full');
    expect(res.body.more).toBe(true);
    const versions = res.body.records.map((r: { version: number }) => r.version);
    expect(versions[0]).toBe(4);
    expect(versions.length).toBeLessThan(4);
    expect(res.body.fit.omitted).toContain(`query=1-${4 - versions.length}`);
  });
});

describe('audit replay and export, fitted', () => {
  it('audit: without parameters the lines are unchanged; with a budget the last line is the fit note', async () => {
    const plain = await fetch(`${svc.url}/v1/tenants/acme/audit`, { headers: { authorization: 'Bearer test-admin-key-0123456789' } });
    const whole = ndjson(await plain.text());
    expect(whole.length).toBeGreaterThan(10);
    expect(whole.some((l) => 'fit' in l)).toBe(false);

    const res = await fetch(`${svc.url}/v1/tenants/acme/audit?budget=300`, { headers: { authorization: 'Bearer test-admin-key-0123456789' } });
    expect(res.status).toBe(200);
    const lines = ndjson(await res.text());
    const fit = lines.pop().fit;
    expect(fit.budget).toBe(300);
    expect(fit.tokens).toBeLessThanOrEqual(300);
    expect(fit.omitted).toContain('the budget of 300 tokens');
    expect(fit.omitted).toMatch(/read on with query=\d+-\d+/);
    // Whole entries, exactly as hashed: each is one of the unfitted lines.
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(whole).toContainEqual(l);
  });

  it('audit: a query by kind and by seq range; view summary keeps seq, at and kind', async () => {
    const h = { authorization: 'Bearer test-admin-key-0123456789' };
    const byKind = ndjson(await (await fetch(`${svc.url}/v1/tenants/acme/audit?query=job_started`, { headers: h })).text());
    const note = byKind.pop().fit;
    expect(note.view).toBe('section');
    expect(byKind.length).toBeGreaterThan(0);
    expect(byKind.every((l) => l.kind === 'job_started')).toBe(true);
    const byRange = ndjson(await (await fetch(`${svc.url}/v1/tenants/acme/audit?query=2-4`, { headers: h })).text());
    byRange.pop();
    expect(byRange.map((l) => l.seq)).toEqual([2, 3, 4]);
    const summary = ndjson(await (await fetch(`${svc.url}/v1/tenants/acme/audit?view=summary`, { headers: h })).text());
    expect(summary.pop().fit.view).toBe('summary');
    expect(Object.keys(summary[0]).every((k) => ['seq', 'at', 'kind', 'job'].includes(k))).toBe(true);
    const bad = await fetch(`${svc.url}/v1/tenants/acme/audit?view=huge`, { headers: h });
    expect(bad.status).toBe(400);
  });

  it('export: record lines cut whole, the manifest of the whole export, then the fit line', async () => {
    const h = { authorization: 'Bearer test-admin-key-0123456789' };
    const res = await fetch(`${svc.url}/v1/tenants/acme/export?budget=300`, { headers: h });
    expect(res.status).toBe(200);
    const lines = ndjson(await res.text());
    const fit = lines.pop().fit;
    const manifest = lines.pop().manifest;
    expect(manifest.records).toBe(6);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.length).toBeLessThan(6);
    expect(lines[0].key).toBe('k1');
    expect(fit.tokens).toBeLessThanOrEqual(300);
    expect(fit.omitted).toContain('the budget of 300 tokens');

    const byKey = ndjson(await (await fetch(`${svc.url}/v1/tenants/acme/export?query=notes/tenant/k4`, { headers: h })).text());
    byKey.pop();
    byKey.pop();
    expect(byKey.map((l) => l.key)).toEqual(['k4']);
    const stub = ndjson(await (await fetch(`${svc.url}/v1/tenants/acme/export?view=stub`, { headers: h })).text());
    expect(stub.pop().fit.view).toBe('stub');
    expect(stub[0].outline).toContain('6 lines');
  });
});
