import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteInfo } from '../../../adapters/http/server.ts';
import { caller } from '../../support/records.ts';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/service.ts';

/**
 * A seeded fuzzer over every registered route: admin routes with the admin key, the records
 * API with a live ticket, public routes bare. Whatever arrives, the service answers without
 * a 5xx, every 4xx is JSON, and no refusal moves the event log.
 */

const SEED = 20261130;
const INPUTS = Number(process.env.FUZZ_INPUTS ?? 5000);

let svc: TestService;

/** mulberry32: small, seeded, good enough to pick shapes. */
const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const rand = prng(SEED);
const int = (n: number) => Math.floor(rand() * n);
const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;

// Pools of hostile values drawn once from fast-check with the same seed.
const STRINGS = fc.sample(fc.string({ unit: 'binary', maxLength: 40 }), { seed: SEED, numRuns: 500 });
const JSONS = fc.sample(fc.jsonValue({ maxDepth: 4 }), { seed: SEED + 1, numRuns: 500 });
const NASTY_STRINGS = [
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  'x\ud83d',
  '\ud83d\ude00',
  '',
  ' ',
  '..',
  '../..',
  '%00',
  '%2F',
  'é',
  'a'.repeat(300),
  '__proto__',
  'constructor',
  'prototype',
  '1e999',
];
const NASTY_NUMBERS = ['1e999', '-1e999', '123456789012345678901234567890', '1e-400', '-0', '0.1e1', '9007199254740993', '1.7976931348623157e309'];

const hostileString = () => (rand() < 0.5 ? pick(NASTY_STRINGS) : pick(STRINGS));

/** A path piece spelt as bytes: lone surrogates become the invalid UTF-8 a client could send. */
const pathPiece = (s: string) => {
  try {
    return encodeURIComponent(s);
  } catch {
    return [...s].map((ch) => (ch.length === 1 && ch.charCodeAt(0) >= 0xd800 && ch.charCodeAt(0) <= 0xdfff ? '%ED%A0%80' : encodeURIComponent(ch))).join('');
  }
};

/** A request body that is almost right for its route: one thing wrong, or everything. */
const TEMPLATES: Record<string, () => Record<string, unknown>> = {
  'POST /v1/tenants': () => ({ id: `t${int(1e6)}`, settings: { retention_days: 3 } }),
  'PATCH /v1/tenants/:t': () => ({ retention_days: 30, label_walls: [['a', 'b']], start_roles: ['r'], people: { ada: { roles: ['r'], teams: [] } } }),
  'POST /v1/tenants/:t/plugins': () => ({ name: 'tool', functions: ['f'], agents: ['a'] }),
  'POST /v1/tenants/:t/revocations': () => ({ revocations: [{ kind: 'api_key_revoked', key: 'k' }] }),
  'POST /v1/tenants/:t/jobs': () => ({ agent: 'scribe', plugin: 'notes', subject: 's', input: { q: 1 }, constraints: ['c'], labels: ['l'] }),
  'POST /v1/tenants/:t/jobs/:id/calls': () => ({ function: 'save', step: 1 }),
  'POST /v1/tenants/:t/holds': () => ({ selector: { data_subject: 'user:x' }, reason: 'r' }),
  'POST /v1/tenants/:t/erasures': () => ({ data_subject: 'user:x' }),
  'POST /v1/_clock': () => ({ advance_ms: 0 }),
  'POST /v1/records': () =>
    pick([
      { op: 'put', scope: 'tenant', record_key: `k${int(50)}`, expect: int(3), body: { text: 'x' }, kind: 'note', state: 'open' },
      { op: 'get', scope: 'tenant', record_key: `k${int(50)}` },
      { op: 'history', scope: 'tenant', record_key: `k${int(50)}` },
      { op: 'list', list: { kinds: ['note'], limit: 5 } },
    ]),
};

/** Puts something hostile somewhere in an object (explicit stack, like the code under test). */
const mutate = (value: Record<string, unknown>): Record<string, unknown> => {
  const copy = JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
  const holders: Record<string, unknown>[] = [copy];
  const stack: unknown[] = [copy];
  while (stack.length) {
    const v = stack.pop();
    if (!v || typeof v !== 'object') continue;
    for (const c of Object.values(v)) {
      if (c && typeof c === 'object') {
        holders.push(c as Record<string, unknown>);
        stack.push(c);
      }
    }
  }
  const at = pick(holders);
  const keys = Object.keys(at);
  const key = keys.length > 0 && rand() < 0.7 ? pick(keys) : hostileString();
  const what = int(6);
  if (what === 0) at[key] = hostileString();
  else if (what === 1) at[key] = pick(JSONS);
  else if (what === 2)
    Object.defineProperty(at, pick(['__proto__', 'constructor', 'prototype']), { value: pick(JSONS), enumerable: true, configurable: true, writable: true });
  else if (what === 3) at[key] = pick([null, true, 0, -1, 1.5, [], {}, 'x']);
  else if (what === 4) at[hostileString()] = pick(JSONS);
  else delete at[key];
  return copy;
};

const deep = (n: number) => (rand() < 0.5 ? `${'['.repeat(n)}${']'.repeat(n)}` : `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`);

/** The body text and its media type for one input. */
const bodyFor = (routeKey: string, limit: number): { text?: string; type?: string } => {
  const template = TEMPLATES[routeKey] ?? (() => ({}));
  const k = int(12);
  const type =
    rand() < 0.9
      ? 'application/json'
      : pick(['text/plain', 'application/x-ndjson', 'application/json; charset=utf-8', 'multipart/form-data; boundary=x', 'application/xml']);
  if (k <= 3) return { text: JSON.stringify(mutate(template())), type };
  if (k === 4) return { text: JSON.stringify(pick(JSONS)), type };
  if (k === 5) return { text: `{"op":"put","scope":"tenant","record_key":"d","expect":0,"body":{"x":${deep(1 + int(10_000))}}}`, type };
  if (k === 6) return { text: JSON.stringify(template()).replace(/\d+|"x"|true/, pick(NASTY_NUMBERS)), type };
  if (k === 7) return { text: JSON.stringify({ ...template(), pad: 'x'.repeat(int(limit + 1024)) }), type };
  if (k === 8) {
    const t = JSON.stringify(template());
    return { text: t.slice(0, int(t.length)), type };
  }
  if (k === 9) return { text: JSON.stringify(template()).replace(/"[a-z]+"/, `"${pick(['\\u0000', '\\ud800', '\\udc00x', 'a\\u0000'])}"`), type };
  if (k === 10) return rand() < 0.5 ? {} : { text: '', type };
  return { text: JSON.stringify(template()), type };
};

let tickets: { ticket: string; used: number }[] = [];
let jobCount = 0;

/**
 * The one 5xx the contract gives: 503 `unavailable` as JSON — a loaded machine's read models
 * behind the log, or other writers outrunning the request — which says to send the same
 * request again. Anything else at 500 and above is a crash.
 */
const unavailableAsContracted = (res: { statusCode: number; body: string; headers: Record<string, unknown> }) => {
  if (res.statusCode !== 503 || !String(res.headers['content-type']).startsWith('application/json')) return false;
  try {
    return (JSON.parse(res.body) as { error?: unknown }).error === 'unavailable';
  } catch {
    return false;
  }
};

/** A live records ticket with requests left; a new call (or job) when one is spent or dead. */
const liveTicket = async (): Promise<string> => {
  const current = tickets.at(-1);
  if (current && current.used < 60) {
    current.used++;
    return current.ticket;
  }
  // A start or mint answered 503 `unavailable` on a loaded machine is sent again, as the answer says.
  const { ticket } = await caller(svc, 'rec', { job: `fz-${++jobCount}`, input: 'fuzz' });
  tickets = [{ ticket, used: 1 }];
  return ticket;
};

let knownCall = '';
const param = (name: string): string => {
  if (rand() < 0.35) return pathPiece(hostileString());
  const valid: Record<string, string[]> = {
    t: ['fz', 'fz', 'nobody', 'rec-no'],
    id: ['j1', 'j2', 'missing'],
    call: [knownCall, '00000000-0000-4000-8000-000000000000'],
    hold: ['00000000-0000-4000-8000-000000000000'],
  };
  return pick(valid[name] ?? ['x']);
};

const QUERY_KEYS = [
  'job',
  'record',
  'kind',
  'subject',
  'since',
  'until',
  'epoch',
  'leaf',
  'size',
  'from',
  'to',
  'plugin',
  'position',
  'versions',
  '__proto__',
  'x',
];
const queryFor = () => {
  if (rand() < 0.5) return '';
  const parts: string[] = [];
  for (let i = 0, n = 1 + int(3); i < n; i++)
    parts.push(`${pick(QUERY_KEYS)}=${rand() < 0.5 ? pathPiece(hostileString()) : String(pick([0, 1, -1, 5, 1e21, 'true', 'abc']))}`);
  return `?${parts.join('&')}`;
};

/** 201, or 503 `unavailable` on a loaded machine: "the change is recorded", then held by the read models once they catch up. */
const recorded = async (answer: { status: number; body: any }) => {
  if (answer.status !== 503 || answer.body?.error !== 'unavailable') return answer.status;
  await svc.runner.catchUp();
  return 201;
};

beforeAll(async () => {
  svc = await startTestService({ testClock: true });
  for (const t of ['fz', 'rec']) {
    expect(await recorded(await svc.admin('POST', '/v1/tenants', { id: t }))).toBe(201);
    expect(await recorded(await svc.admin('POST', `/v1/tenants/${t}/plugins`, { name: 'notes', functions: ['save'], agents: ['scribe'] }))).toBe(201);
  }
  knownCall = (await caller(svc, 'fz', { job: 'j1', input: 'x' })).call;
});
afterAll(async () => svc?.stop());

describe('fuzz: every route, hostile input', () => {
  it(`answers ${INPUTS} seeded hostile inputs with no 5xx, JSON on every 4xx, and no refusal moving the log`, { timeout: 300_000 }, async () => {
    const routes: readonly RouteInfo[] = svc.http.routeTable;
    const recordsRoute = routes.find((r) => r.url === '/v1/records')!;
    const problems: string[] = [];
    let fiveXX = 0;
    let nonJson = 0;
    let refusals = 0;
    let moved = 0;
    let accepted = 0;
    let unavailable = 0;
    const start = await svc.lastPosition();
    const histogram = new Map<string, number>();
    for (let i = 0; i < INPUTS; i++) {
      // The records API is the surface agents reach: a quarter of all inputs.
      const route = rand() < 0.25 ? recordsRoute : pick(routes);
      const routeKey = `${route.method} ${route.url}`;
      const url = route.url.replace(/:([A-Za-z_]+)/g, (_m, name: string) => param(name)) + queryFor();
      const limit = route.url === '/v1/records' ? 64 * 1024 : 1 << 20;
      const { text, type } = route.method === 'GET' || route.method === 'HEAD' ? (rand() < 0.9 ? {} : bodyFor(routeKey, limit)) : bodyFor(routeKey, limit);
      const headers: Record<string, string> = {};
      if (type && text !== undefined) headers['content-type'] = type;
      if (route.auth === 'admin' || route.auth === 'auditor-key') headers.authorization = `Bearer ${ADMIN_KEY}`;
      if (route.auth === 'ticket') headers.authorization = `Bearer ${await liveTicket()}`;
      const before = await svc.lastPosition();
      const res = await svc.http.inject({ method: route.method as 'GET', url, headers, ...(text !== undefined ? { payload: text } : {}) });
      const after = await svc.lastPosition();
      histogram.set(`${routeKey} ${res.statusCode}`, (histogram.get(`${routeKey} ${res.statusCode}`) ?? 0) + 1);
      const label = `#${i} ${route.method} ${url.slice(0, 100)} ${type ?? ''} ${(text ?? '').slice(0, 100)} → ${res.statusCode} ${res.body.slice(0, 160)}`;
      if (unavailableAsContracted(res)) unavailable++;
      else if (res.statusCode >= 500) {
        fiveXX++;
        problems.push(label);
      } else if (res.statusCode >= 400) {
        refusals++;
        let json = route.method === 'HEAD';
        try {
          json ||= typeof JSON.parse(res.body) === 'object' && String(res.headers['content-type']).startsWith('application/json');
        } catch {
          json = false;
        }
        if (!json) {
          nonJson++;
          problems.push(`non-JSON ${label}`);
        }
        if (after !== before) {
          moved++;
          problems.push(`moved ${before}→${after} ${label}`);
        }
      } else accepted++;
    }
    const end = await svc.lastPosition();
    console.log(
      `fuzz: ${INPUTS} inputs, ${fiveXX} 5xx (besides ${unavailable} 503 unavailable), ${nonJson} non-JSON, log position ${start} before / ${end} after the run; ${refusals} refusals moved it ${moved} times (each checked before and after), ${accepted} accepted`,
    );
    if (process.env.FUZZ_HISTOGRAM)
      console.log(
        [...histogram]
          .sort()
          .map(([k, n]) => `${k}: ${n}`)
          .join('\n'),
      );
    expect(problems.slice(0, 20)).toEqual([]);
    expect(fiveXX + nonJson + moved).toBe(0);
  });
});
