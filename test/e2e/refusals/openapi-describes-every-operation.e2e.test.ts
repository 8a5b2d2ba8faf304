import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * /openapi.json describes every operation: a request schema wherever it takes a body, its
 * success answer and the refusal body; no text a user cannot resolve.
 */

let svc: TestService;
let doc: any;
beforeAll(async () => {
  svc = await startTestService({ testClock: true });
  doc = await (await fetch(`${svc.url}/openapi.json`)).json();
}, 120_000);
afterAll(async () => svc?.stop());

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;
const operations = () =>
  Object.entries<any>(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((m) => ({ name: `${m.toUpperCase()} ${path}`, method: m, op: item[m] })),
  );

/** Operations that take no body at all (a POST that only acts). */
const NO_BODY = new Set(['POST /v1/tenants/{t}/retention/run']);

describe('the OpenAPI document', () => {
  it('has the operations the server serves', () => {
    const names = operations().map((o) => o.name);
    expect(names.length).toBeGreaterThan(45);
    for (const expected of [
      'POST /v1/records',
      'PUT /v1/files',
      'POST /v1/results',
      'PUT /v1/agent/records/{collection}/{id}',
      'GET /v1/tenants/{t}/audit',
      'GET /',
    ])
      expect(names).toContain(expected);
  });

  it('gives every operation that takes a body a request schema', () => {
    const missing = operations()
      .filter((o) => ['post', 'put', 'patch'].includes(o.method) && !NO_BODY.has(o.name))
      .filter((o) => {
        const content = o.op.requestBody?.content ?? {};
        return Object.values<any>(content).every((c) => !c.schema || Object.keys(c.schema).length === 0);
      })
      .map((o) => o.name);
    expect(missing).toEqual([]);
  });

  it('gives every operation its success answer and the refusal body', () => {
    const problems: string[] = [];
    for (const { name, op } of operations()) {
      const responses = op.responses ?? {};
      const success = Object.keys(responses).filter((k) => /^2/.test(k));
      if (success.length === 0) problems.push(`${name}: no success answer`);
      for (const k of success) if (!responses[k].content || !responses[k].description) problems.push(`${name}: ${k} has no schema`);
      // Each refusal status on its own (400 at least), never a catch-all: no answer goes undocumented.
      if (responses['4XX'] || responses['5XX']) problems.push(`${name}: a 4XX or 5XX catch-all`);
      const refusal = responses['400']?.content?.['application/json']?.schema;
      if (refusal?.$ref !== '#/components/schemas/Refusal') problems.push(`${name}: no refusal body`);
    }
    expect(problems).toEqual([]);
  });

  it('names the refusal body once, with its code and message', () => {
    const refusal = doc.components.schemas.Refusal;
    expect(refusal.properties.error.enum).toContain('invalid');
    expect(refusal.required).toEqual(expect.arrayContaining(['error', 'message']));
  });

  it('describes the records put fields', () => {
    const body = doc.paths['/v1/records'].post.requestBody.content['application/json'].schema;
    const put = (body.oneOf ?? body.anyOf).find((s: any) => s.properties?.op?.const === 'put' || s.properties?.op?.enum?.[0] === 'put');
    expect(Object.keys(put.properties)).toEqual(expect.arrayContaining(['scope', 'record_key', 'body', 'expect', 'dedupe', 'ends_at']));
  });

  it('cites no spec sections, issues or seed names', () => {
    const text = JSON.stringify(doc);
    expect(text).not.toMatch(/SPEC|§|seed ?0\d|issue #?\d|red ?team/i);
  });
});
