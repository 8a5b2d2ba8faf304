import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, type Caller } from '../../support/records.ts';
import { startPair } from '../../support/pair.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * Two instances put into one stream at once while each takes its snapshots (a scope every 500
 * events, an agent every 50), and one of them is restarted cold half-way: every put answered
 * 200 is in the log at the version it was answered with, no version is answered twice,
 * nothing is answered 500, every refusal is a JSON error (a 4xx, or 503 `unavailable`, sent
 * again as it says); and a third fresh instance decides from those snapshots exactly as the
 * log has it.
 */
let a: TestService;
let b: TestService;
const started: TestService[] = [];
beforeAll(async () => {
  ({ a, b } = await startPair({ caps: { records: 10_000, bytes: 100_000_000 } }));
  started.push(b);
}, 120_000);
afterAll(async () => {
  for (const s of started.reverse()) await s.stop();
  await a.stop();
});

type Answer = { status: number; body: any };
/** A refusal says what it is and, for `unavailable`, what to do; nothing is a 500. */
const wellRefused = (r: Answer) => {
  if (r.status >= 500) expect(r.status, JSON.stringify(r.body)).toBe(503);
  if (r.status === 503) expect(r.body).toMatchObject({ error: 'unavailable', reason: expect.stringMatching(/retry|again/) });
  if (r.status >= 400) expect(typeof r.body?.error).toBe('string');
};

describe('one scope put into from two instances while snapshots are written, one restarted cold', () => {
  const SCOPE = 'project:two';
  const STREAM = `records:acme:notes:${SCOPE}`;
  /** Every 200: key and version. */
  const acked: { key: string; version: number }[] = [];

  /** 600 puts, half on each instance: new keys, and a tenth on eight shared keys at a guessed version (stale, or a conflict decided again). */
  const round = async (x: TestService, y: TestService, tag: string) => {
    const callers = await Promise.all(Array.from({ length: 10 }, (_, i) => caller(i % 2 ? y : x, 'acme', { input: 'two' })));
    const sends = Array.from({ length: 600 }, (_, i) => {
      const shared = i % 10 === 0;
      return {
        on: callers[i % 10]!,
        svc: i % 2 ? y : x,
        req: { op: 'put', scope: SCOPE, record_key: shared ? `s${i % 8}` : `${tag}-${i}`, body: { tag, i }, expect: shared ? (i >> 4) % 4 : 0 },
      };
    });
    const answers = await Promise.all(
      sends.map(async ({ on, svc, req }) => {
        let r = await on.rec(req);
        // `unavailable`: nothing of it was written; the answer says to send it again (on a call of its own: a call carries 64 requests).
        for (let again = 0; again < 4 && r.status === 503 && r.body?.error === 'unavailable'; again++)
          r = await (await caller(svc, 'acme', { input: 'two' })).rec(req);
        return [req, r] as const;
      }),
    );
    for (const [req, r] of answers) {
      wellRefused(r);
      if (r.status === 200) {
        expect(r.body).toMatchObject({ key: req.record_key, scope: SCOPE });
        acked.push({ key: req.record_key, version: r.body.version });
      } else if (!req.record_key.startsWith('s')) throw new Error(`a new key refused: ${JSON.stringify(r.body)}`);
    }
  };

  it('answers each version once, each in the log, and a fresh third instance decides as the log', async () => {
    await round(a, b, 'one');
    await b.stop();
    started.splice(started.indexOf(b), 1);
    const cold = await startTestService({ shareWith: a });
    started.push(cold);
    await round(a, cold, 'two');

    const { rows } = await a.pool.query<{ key: string; version: number }>(
      `SELECT data->>'key' AS key, (data->>'version')::int AS version FROM custodian_events WHERE stream = $1 AND type = 'RecordVersionWritten' ORDER BY revision`,
      [STREAM],
    );
    expect(rows.length).toBeGreaterThan(1000);
    const logged = rows.map((r) => `${r.key}@${r.version}`);
    // No version answered twice, none in the log twice, and each answered one in the log.
    const answered = acked.map((w) => `${w.key}@${w.version}`);
    expect(new Set(answered).size).toBe(answered.length);
    expect(new Set(logged).size).toBe(logged.length);
    expect(answered.filter((w) => !logged.includes(w))).toEqual([]);
    // The log holds what was answered and nothing else (a put refused wrote nothing).
    expect([...logged].sort()).toEqual([...answered].sort());
    // Versions go 1, 2, 3… on each key.
    const newest = new Map<string, number>();
    for (const r of rows) {
      expect(r.version, r.key).toBe((newest.get(r.key) ?? 0) + 1);
      newest.set(r.key, r.version);
    }

    // A third instance, fresh: each shared key (and some new ones) is at the version the log has.
    const third = await startTestService({ shareWith: a });
    started.push(third);
    const on: Caller = await caller(third, 'acme', { input: 'two' });
    for (const key of [...Array.from({ length: 8 }, (_, j) => `s${j}`), 'one-1', 'two-599', 'one-303']) {
      const at = newest.get(key) ?? 0;
      expect(await on.rec({ op: 'put', scope: SCOPE, record_key: key, body: {}, expect: at + 1 }), key).toMatchObject({
        status: 409,
        body: { error: 'stale', current: at },
      });
      expect(await on.rec({ op: 'put', scope: SCOPE, record_key: key, body: {}, expect: at }), key).toMatchObject({ status: 200, body: { version: at + 1 } });
    }
    // A snapshot was taken (the third instance read a head, not only the log). Which revision it
    // is at depends on the interleaving: each instance snapshots 500 events past the newest
    // snapshot it knows of, so the second may fall past the end of the run (it did under load).
    const { rows: heads } = await a.pool.query(`SELECT revision FROM custodian_snapshots WHERE stream = $1 AND revision >= 499`, [STREAM]);
    expect(heads).toHaveLength(1);
  }, 300_000);
});

describe("one agent's collection put into from two instances while snapshots are written, one restarted cold", () => {
  it('a fresh instance queries and exports exactly the records answered 200', async () => {
    const key = ((await a.admin('POST', '/v1/tenants/acme/agent-keys', { agent: 'scout' })).body as { key: string }).key;
    const call = async (svc: TestService, method: string, path: string, body?: unknown): Promise<Answer> => {
      const res = await fetch(`${svc.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, body: res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : text };
    };
    expect((await call(a, 'PUT', '/v1/agent/collections', { collections: { notes: { fields: ['status'] } } })).status).toBe(200);
    const acked = new Map<string, number>();
    const putAll = async (x: TestService, y: TestService, from: number) => {
      const answers = await Promise.all(
        Array.from({ length: 150 }, async (_, j) => {
          const i = from + j;
          const svc = i % 2 ? y : x;
          let r = await call(svc, 'PUT', `/v1/agent/records/notes/n${i}`, { value: { status: i % 4 ? 'odd' : 'even', i } });
          for (let again = 0; again < 4 && r.status === 503 && r.body?.error === 'unavailable'; again++)
            r = await call(svc, 'PUT', `/v1/agent/records/notes/n${i}`, { value: { status: i % 4 ? 'odd' : 'even', i } });
          return [i, r] as const;
        }),
      );
      for (const [i, r] of answers) {
        wellRefused(r);
        if (r.status === 200) acked.set(`n${i}`, i);
      }
    };
    const [first] = started.filter((s) => s !== a);
    await putAll(a, first!, 0);
    const cold = await startTestService({ shareWith: a });
    started.push(cold);
    await putAll(cold, first!, 150);
    expect(acked.size).toBeGreaterThan(250);

    const fresh = await startTestService({ shareWith: a });
    started.push(fresh);
    const seen: { id: string; value: { i: number } }[] = [];
    let after: unknown;
    for (;;) {
      const page = await call(fresh, 'POST', '/v1/agent/records/notes/query', { limit: 100, ...(after ? { after } : {}) });
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      seen.push(...page.body.entries);
      if (page.body.entries.length < 100) break;
      const last = page.body.entries.at(-1);
      after = { createdAt: last.createdAt, id: last.id };
    }
    const expected = [...acked].map(([id, i]) => [id, i]).sort();
    expect(seen.map((e) => [e.id, e.value.i]).sort()).toEqual(expected);
    const even = await call(fresh, 'POST', '/v1/agent/records/notes/query', { where: { status: 'even' }, limit: 100 });
    expect(even.status, JSON.stringify(even.body)).toBe(200);
    expect(even.body.entries.map((e: { id: string }) => e.id).sort()).toEqual(
      [...acked]
        .filter(([, i]) => i % 4 === 0)
        .map(([id]) => id)
        .sort(),
    );
    const exported = await call(fresh, 'GET', '/v1/agent/export');
    expect(exported.status).toBe(200);
    const lines = String(exported.body)
      .split('\n')
      .filter((l) => l.length > 0)
      .map((l) => JSON.parse(l) as { id: string; value: { i: number } });
    expect(lines.map((e) => [e.id, e.value.i]).sort()).toEqual(expected);
  }, 300_000);
});
