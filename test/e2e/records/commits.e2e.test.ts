import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, type Caller } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * What one records request costs PostgreSQL, counted at the driver: every statement sent, and
 * every commit (a statement outside an explicit transaction commits on its own, as
 * `pg_stat_database` counts it; inside one, its COMMIT does). The projection runner is stopped
 * while counting, so everything counted is the request's own.
 */
type Query = (this: pg.Client, config: unknown, ...rest: unknown[]) => unknown;
const proto = pg.Client.prototype as unknown as { query: Query };
const original = proto.query;
const inTransaction = new WeakMap<object, boolean>();
let tally: { statements: number; commits: number } | null = null;

const textOf = (config: unknown) => (typeof config === 'string' ? config : String((config as { text?: unknown } | null)?.text ?? '')).trim().toUpperCase();

beforeAll(() => {
  proto.query = function (config, ...rest) {
    const text = textOf(config);
    if (tally && text !== '') {
      tally.statements++;
      if (process.env.SHOW_STATEMENTS) console.log(text.slice(0, 90).replace(/\s+/g, ' '));
      const open = inTransaction.get(this) ?? false;
      if (text.startsWith('BEGIN')) inTransaction.set(this, true);
      else if (text.startsWith('COMMIT') || text.startsWith('ROLLBACK')) {
        inTransaction.set(this, false);
        if (text.startsWith('COMMIT')) tally.commits++;
      } else if (!open) tally.commits++;
    }
    return original.call(this, config, ...rest);
  };
});

const counted = async <T>(work: () => Promise<T>) => {
  tally = { statements: 0, commits: 0 };
  try {
    const result = await work();
    return { result, ...tally };
  } finally {
    tally = null;
  }
};

let svc: TestService;
let c: Caller;
beforeAll(async () => {
  svc = await startTestService();
  await svc.admin('POST', '/v1/tenants', { id: 'acme' });
  await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] });
  c = await caller(svc, 'acme', { input: 'costs' });
  // Warm: the ticket's job folded and verified, the record's data key made and cached.
  expect((await c.rec({ op: 'put', scope: 'project:p', record_key: 'r', body: { v: 1 }, expect: 0 })).status).toBe(200);
  expect((await c.rec({ op: 'get', scope: 'project:p', record_key: 'r' })).status).toBe(200);
  await svc.runner.stop();
});
afterAll(async () => {
  proto.query = original;
  await svc?.stop();
});

describe('statements and commits per records request', () => {
  it('a put of a new version on a warm ticket: one commit, its count and checks inside the append', async () => {
    const put = await counted(() => c.rec({ op: 'put', scope: 'project:p', record_key: 'r', body: { v: 2 }, expect: 1 }));
    expect(put.result).toMatchObject({ status: 200, body: { version: 2 } });
    console.log(`put: ${put.statements} statements, ${put.commits} commits`);
    // Round 1: call context, fence marks, tenant stream, counter, prior key, two stream reads, append = 8 commits;
    // round 2: the admission statement and the append = 2. Now the cached admission's guard rides in the append's transaction.
    expect(put.commits).toBe(1);
    // BEGIN, the guard and the append (one statement), the check that the record's key still
    // exists (locked until COMMIT: another instance may shred it), the records models (one
    // statement), dedupe digests and renewals (one statement), COMMIT (was 9, then 7 with the
    // guard, the digests and the renewals each a statement of their own).
    expect(put.statements).toBeLessThanOrEqual(6);
  });

  it('a put of a new record on a warm ticket: its new data key written in the same one commit', async () => {
    const put = await counted(() => c.rec({ op: 'put', scope: 'project:p', record_key: 'fresh', body: { v: 1 }, expect: 0 }));
    expect(put.result).toMatchObject({ status: 200, body: { version: 1 } });
    console.log(`new record put: ${put.statements} statements, ${put.commits} commits`);
    expect(put.commits).toBe(1);
    // One more than a new version: the new data key's row is written after the append, in its
    // transaction, only once the append succeeded (a refused put leaves no key; was 8).
    expect(put.statements).toBeLessThanOrEqual(6);
    const { rows } = await svc.pool.query("SELECT 1 FROM custodian_data_keys WHERE scope = 'project:p' AND record_key = 'fresh'");
    expect(rows).toHaveLength(1);
  });

  it('a get on a warm ticket: the read, then its count and audit append in one transaction', async () => {
    const get = await counted(() => c.rec({ op: 'get', scope: 'project:p', record_key: 'r' }));
    expect(get.result).toMatchObject({ status: 200, body: { record: { version: 2, body: { v: 2 } } } });
    console.log(`get: ${get.statements} statements, ${get.commits} commits`);
    expect(get.commits).toBeLessThanOrEqual(get.statements);
    // Before: call context, fence marks, tenant stream and counter were four commits of the admission alone;
    // round 2: admission, read, audit append = 3. Now the read's SELECT (read-only) and one write transaction.
    expect(get.commits).toBeLessThanOrEqual(2);
    // The read, then its guard and audit append in one statement that commits on its own (was 5: BEGIN, guard, append, COMMIT).
    expect(get.statements).toBeLessThanOrEqual(2);
  });

  it('a refused put still counts and writes nothing, in one admission statement', async () => {
    const refused = await counted(() => c.rec({ op: 'put', scope: 'project:p', record_key: 'r', body: { v: 9 }, expect: 0 }));
    expect(refused.result).toMatchObject({ status: 409, body: { error: 'stale', current: 2 } });
    console.log(`refused put: ${refused.statements} statements, ${refused.commits} commits`);
    // Before: seven (the admission's four lookups, the prior key, two stream reads). Now the
    // scope's stream read (a refusal is only answered from a state caught up) and its count alone.
    expect(refused.commits).toBeLessThanOrEqual(2);
    // The stream read, and the count's guard as one statement on its own (was 4: with BEGIN and COMMIT around it).
    expect(refused.statements).toBeLessThanOrEqual(2);
    const { rows } = await svc.pool.query<{ n: number }>('SELECT n FROM custodian_call_requests WHERE call = $1', [c.call]);
    // warm put, warm get, put, new record put, get, refused put
    expect(rows[0]!.n).toBe(6);
    const { rows: versions } = await svc.pool.query<{ n: string }>(
      "SELECT count(*) AS n FROM custodian_events WHERE type = 'RecordVersionWritten' AND stream LIKE 'records:%'",
    );
    expect(Number(versions[0]!.n)).toBe(3);
  });
});
