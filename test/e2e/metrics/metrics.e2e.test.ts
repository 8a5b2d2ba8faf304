import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, type Caller } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { parsePrometheus, sample, type Sample } from '../../support/prometheus.ts';

let svc: TestService;
let c: Caller;
const PUTS = 3;

const scrape = async (headers: Record<string, string> = {}): Promise<{ status: number; samples: Sample[]; text: string }> => {
  const res = await fetch(`${svc.url}/metrics`, { headers });
  const text = await res.text();
  return { status: res.status, samples: res.status === 200 ? parsePrometheus(text) : [], text };
};

beforeAll(async () => {
  svc = await startTestService();
  expect((await svc.admin('POST', '/v1/tenants', { id: 'metrics-tenant-name' })).status).toBe(201);
  expect((await svc.admin('POST', '/v1/tenants/metrics-tenant-name/plugins', { name: 'secret-plugin', functions: ['save'], agents: ['scribe'] })).status).toBe(
    201,
  );
  c = await caller(svc, 'metrics-tenant-name', { plugin: 'secret-plugin' });
  for (let i = 0; i < PUTS; i++) expect((await c.rec({ op: 'put', scope: 'tenant', record_key: `notes/${i}`, body: { n: i }, expect: 0 })).status).toBe(200);
  expect((await c.rec({ op: 'get', scope: 'tenant', record_key: 'notes/0' })).body.record.body).toEqual({ n: 0 });
  // Refused: the record exists, so `expect: 0` is stale.
  const refused = await c.rec({ op: 'put', scope: 'tenant', record_key: 'notes/0', body: { n: 'again' }, expect: 0 });
  expect(refused).toMatchObject({ status: 409, body: { error: 'stale' } });
  // Refused by the error handler: a body that is not JSON.
  const notJson = await fetch(`${svc.url}/v1/records`, {
    method: 'POST',
    headers: { authorization: `Bearer ${c.ticket}`, 'content-type': 'text/plain' },
    body: 'hi',
  });
  expect(notJson.status).toBe(415);
  // Refused before the body: no such ticket.
  expect((await fetch(`${svc.url}/v1/records`, { method: 'POST', headers: { authorization: 'Bearer nope' } })).status).toBe(401);
});
afterAll(async () => svc?.stop());

describe('/metrics after a short workload', () => {
  it('counts the events appended by type: one RecordVersionWritten per put, none for the refused put', async () => {
    const { samples } = await scrape();
    expect(sample(samples, 'custodian_events_appended_total', { type: 'RecordVersionWritten' })).toBe(PUTS);
    expect(sample(samples, 'custodian_events_appended_total', { type: 'TenantCreated' })).toBe(1);
    const { rows } = await svc.pool.query<{ n: string }>("SELECT count(*) AS n FROM custodian_events WHERE type = 'RecordVersionWritten'");
    expect(Number(rows[0]!.n)).toBe(PUTS);
  });

  it('times every append: the histogram counts at least one append per put, with a positive sum', async () => {
    const { samples } = await scrape();
    expect(sample(samples, 'custodian_append_duration_seconds_count')).toBeGreaterThanOrEqual(PUTS);
    expect(sample(samples, 'custodian_append_duration_seconds_sum')).toBeGreaterThan(0);
    const inf = sample(samples, 'custodian_append_duration_seconds_bucket', { le: '+Inf' });
    expect(inf).toBe(sample(samples, 'custodian_append_duration_seconds_count'));
  });

  it('times HTTP requests by matched route pattern and status, never by the raw URL', async () => {
    const { samples } = await scrape();
    expect(sample(samples, 'custodian_http_request_duration_seconds_count', { route: '/v1/records', status: '200', method: 'POST' })).toBe(PUTS + 1);
    expect(sample(samples, 'custodian_http_request_duration_seconds_count', { route: '/v1/records', status: '409', method: 'POST' })).toBe(1);
    expect(sample(samples, 'custodian_http_request_duration_seconds_count', { route: '/v1/tenants/:t/jobs/:id/calls', status: '201' })).toBe(1);
    const routes = new Set(samples.filter((s) => s.name.startsWith('custodian_http_')).map((s) => s.labels.route));
    for (const route of routes) expect(route === 'unmatched' || route!.startsWith('/')).toBe(true);
  });

  it('counts the records API refusals by code', async () => {
    const { samples } = await scrape();
    expect(sample(samples, 'custodian_records_refusals_total', { route: '/v1/records', code: 'stale' })).toBe(1);
    expect(sample(samples, 'custodian_records_refusals_total', { route: '/v1/records', code: 'ticket' })).toBe(1);
    expect(sample(samples, 'custodian_records_refusals_total', { route: '/v1/records', code: 'unsupported_media_type' })).toBe(1);
    expect(samples.filter((s) => s.name === 'custodian_records_refusals_total').reduce((n, s) => n + s.value, 0)).toBe(3);
  });

  it('shows each projection position and lag, and the audit tree growing to the audited entries', async () => {
    const head = await svc.lastPosition();
    // The audit projection runs behind the others: every projection applies the log to its head first.
    await svc.runner.catchUp();
    const { samples } = await scrape();
    expect(sample(samples, 'custodian_log_head_position')).toBeGreaterThanOrEqual(head);
    expect(sample(samples, 'custodian_projection_position', { projection: 'audit' })).toBeGreaterThanOrEqual(head);
    expect(sample(samples, 'custodian_projection_lag_events', { projection: 'audit' })).toBe(0);
    expect(sample(samples, 'custodian_projection_lag_seconds', { projection: 'audit' })).toBe(0);
    const projections = samples.filter((s) => s.name === 'custodian_projection_position').map((s) => s.labels.projection);
    expect(projections.length).toBeGreaterThan(1);
    const { rows } = await svc.pool.query<{ n: string }>('SELECT sum(size) AS n FROM rm_audit_heads');
    expect(Number(rows[0]!.n)).toBeGreaterThan(0);
    expect(sample(samples, 'custodian_audit_tree_size')).toBe(Number(rows[0]!.n));
  });

  it('names no tenant, plugin or key in any label, and stays public as before', async () => {
    const { status, text } = await scrape();
    expect(status).toBe(200);
    expect(text).not.toContain('metrics-tenant-name');
    expect(text).not.toContain('secret-plugin');
    expect(text).not.toContain(c.ticket);
    expect(text).not.toContain(c.job);
  });
});
