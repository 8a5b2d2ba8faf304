import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventRegistry } from '../../../domain/events/registry.ts';
import { jobDecider } from '../../../domain/jobs/decide.ts';
import { keyedGet } from '../../../domain/jobs/keyed.ts';
import { endedMark, liveCall, type JobState } from '../../../domain/jobs/state.ts';
import { ticketHash } from '../../../domain/shared/hash.ts';
import { loadState } from '../../../commands/handle.ts';
import { startPair, stopPair } from '../../support/pair.ts';
import { records } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { snapshotWritesSettled } from '../../../queries/snapshot-write.ts';

/**
 * A long job's snapshot is a MACed head and parts named by digest; a cold instance reads the
 * head, catches it up with the log's events, and reads only the parts a command or the fence
 * looks into. Whatever two instances did to the job around its snapshots, a third, cold
 * instance decides every ticket, every retried step and every new step exactly as a replay of
 * the whole log does; and a part edited or put back from an older snapshot is never used.
 */
let pair: { a: TestService; b: TestService };
beforeAll(async () => {
  pair = await startPair();
});
afterAll(async () => {
  await stopPair(pair);
});

/** More calls than a snapshot interval, written straight into the job's stream (valid MACs). */
const GROWN = 130;
const grow = async (svc: TestService, job: string) => {
  const started = await svc.admin('POST', '/v1/tenants/acme/jobs', { id: job, agent: 'scribe', plugin: 'notes', subject: 's', input: job });
  expect(started.status).toBe(201);
  const stream = `job:acme:${job}`;
  const head = await svc.store.readStream(stream);
  const events = Array.from({ length: GROWN }, (_, i) => ({
    event_id: randomUUID(),
    ...eventRegistry.encode({
      type: 'CallMinted',
      data: {
        tenant: 'acme',
        job,
        run: 1,
        call: `grown-${i}`,
        step: i + 1,
        function: 'save',
        ticket_hash: randomBytes(32).toString('hex'),
        idempotency_key: `grown-key-${i}`,
        startup: false,
        minted_ms: 1,
      },
    }),
    metadata: { tenant: 'acme', causation_id: null, correlation_id: job },
  }));
  const appended = await svc.store.append(stream, events, head.at(-1)!.revision);
  expect(E.isRight(appended)).toBe(true);
  await svc.runner.catchUp();
};

interface Minted {
  readonly call: string;
  readonly ticket: string;
  readonly step: number;
  readonly key: string;
}

type Op = { kind: 'mint'; on: 0 | 1; step: number | null } | { kind: 'end'; on: 0 | 1; which: number } | { kind: 'use'; on: 0 | 1; which: number };
const on = fc.constantFrom<0 | 1>(0, 1);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('mint' as const), on, step: fc.option(fc.integer({ min: 1, max: GROWN + 5 }), { nil: null }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('end' as const), on, which: fc.nat(40) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('use' as const), on, which: fc.nat(40) }) },
);

const mint = async (svc: TestService, job: string, step: number | null): Promise<Minted | null> => {
  const r = await svc.admin('POST', `/v1/tenants/acme/jobs/${job}/calls`, step === null ? { function: 'save' } : { function: 'save', step });
  if (r.status !== 201) return null;
  return { call: r.body.call.id, ticket: r.body._meta['oz0/records'].ticket, step: r.body.call.step, key: r.body._meta['oz0/idempotency_key'] };
};

/** The job as a replay of its whole log has it. */
const replayed = async (svc: TestService, job: string): Promise<Extract<JobState, { exists: true }>> => {
  const { state } = await loadState(svc.store, `job:acme:${job}`, jobDecider);
  if (!state.exists) throw new Error('no job');
  return state;
};

/** Both snapshots of the job (the commands' and the fence's) are past the grown history, once the snapshot writes scheduled so far have ended. */
const snapshotsTaken = async (svc: TestService, job: string) => {
  // Written after the answers that took them.
  await snapshotWritesSettled();
  const { rows } = await svc.pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM custodian_snapshots WHERE stream = ANY($1) AND revision >= $2 AND state LIKE '3.%'`,
    [[`job:acme:${job}`, `fence|job:acme:${job}`], GROWN],
  );
  if (Number(rows[0]!.n) !== 2) throw new Error(`the snapshots of job ${job} past ${GROWN} were not both taken`);
};

/** Every ticket answered on `svc` as the replayed log has its call: live → read, ended → dead ticket. */
const ticketsAsTheLog = async (svc: TestService, job: string, minted: readonly Minted[]) => {
  const log = await replayed(svc, job);
  for (const m of minted) {
    const r = await records(svc, m.ticket, { op: 'get', scope: 'tenant', record_key: 'nothing-here' });
    const live = liveCall(log, m.call);
    if (live) expect(r.status, `live call ${m.call}: ${JSON.stringify(r.body)}`).toBe(200);
    else {
      expect(keyedGet(log.ended, m.call)).toBe(endedMark(ticketHash(m.ticket)));
      expect([r.status, r.body.error], `ended call ${m.call}`).toEqual([401, 'ticket']);
    }
  }
  return log;
};

let world = 0;
describe('a long job past its snapshots, minted, ended and used on two instances at once', () => {
  it('is decided on a cold third instance exactly as a replay of its whole log', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 8, maxLength: 24 }), async (ops) => {
        const job = `long-${world++}`;
        const svc = [pair.a, pair.b] as const;
        await grow(pair.a, job);
        // The first mints on each instance take snapshots (the history is past the interval); the first uses, the fence's.
        const minted: Minted[] = [];
        for (const i of [0, 1] as const) {
          const m = (await mint(svc[i], job, null))!;
          minted.push(m);
          expect((await records(svc[i], m.ticket, { op: 'get', scope: 'tenant', record_key: 'nothing-here' })).status).toBe(200);
        }
        await snapshotsTaken(pair.a, job);
        const answers = await Promise.all(
          ops.map(async (o, n) => {
            await new Promise((r) => setTimeout(r, n % 3));
            const s = svc[o.on];
            if (o.kind === 'mint') {
              const m = await mint(s, job, o.step);
              if (m) minted.push(m);
              return m ? 201 : 500;
            }
            const target = minted[o.which % minted.length]!;
            if (o.kind === 'end') return (await s.admin('POST', `/v1/tenants/acme/jobs/${job}/calls/${target.call}/end`)).status;
            return (await records(s, target.ticket, { op: 'get', scope: 'tenant', record_key: 'nothing-here' })).status;
          }),
        );
        for (const status of answers) expect(status).toBeLessThan(500);

        const c = await startTestService({ shareWith: pair.a });
        try {
          const log = await ticketsAsTheLog(c, job, minted);
          // A retried step (one of the grown, one of those minted here) shares the key the log gave it; a new step is the next.
          for (const step of [7, minted.at(-1)!.step]) {
            const retry = (await mint(c, job, step))!;
            expect(retry.key).toBe(keyedGet(log.steps, step)!.key);
            minted.push(retry);
          }
          const next = (await mint(c, job, null))!;
          expect(next.step).toBe(log.last_step + 1);
          minted.push(next);
          await ticketsAsTheLog(c, job, minted);
          // Ending the job on the cold instance ends exactly the calls the log holds live.
          const before = await replayed(c, job);
          expect((await c.admin('POST', `/v1/tenants/acme/jobs/${job}/end`)).status).toBe(200);
          const { rows } = await c.pool.query<{ n: string }>(
            `SELECT count(*) AS n FROM custodian_events WHERE stream = $1 AND type = 'CallEnded' AND data->>'reason' = 'job_ended'`,
            [`job:acme:${job}`],
          );
          expect(Number(rows[0]!.n)).toBe(before.calls.size);
        } finally {
          await c.stop();
        }
      }),
      { numRuns: 3, endOnFailure: true },
    );
    // A bound, not a timing: three runs of a 5,000-call job took 16 s on an idle machine, 36 s with both cores busy.
  }, 300_000);
});

describe("a long job's snapshot parts, edited in their rows", () => {
  it('are never used: a cold instance replays the job and decides as its log, for a part edited and for one put back from an older snapshot', async () => {
    const job = 'edited-parts';
    await grow(pair.a, job);
    const first = (await mint(pair.a, job, null))!;
    expect((await records(pair.a, first.ticket, { op: 'get', scope: 'tenant', record_key: 'nothing-here' })).status).toBe(200);
    await snapshotsTaken(pair.a, job);
    const older = await pair.a.pool.query<{ stream: string; state: string }>(`SELECT stream, state FROM custodian_snapshots WHERE stream LIKE $1`, [
      `%job:acme:${job}#%`,
    ]);
    // A hundred more events (calls minted, the first ended), so the next snapshots rewrite parts.
    const minted: Minted[] = [first];
    for (let i = 0; i < 100; i++) minted.push((await mint(pair.a, job, null))!);
    expect((await pair.a.admin('POST', `/v1/tenants/acme/jobs/${job}/calls/${first.call}/end`)).status).toBe(200);
    const last = minted.at(-1)!;
    expect((await records(pair.a, last.ticket, { op: 'get', scope: 'tenant', record_key: 'nothing-here' })).status).toBe(200);
    await snapshotWritesSettled();
    const { rows: newer } = await pair.a.pool.query<{ n: string }>(`SELECT count(*) AS n FROM custodian_snapshots WHERE stream = ANY($1) AND revision >= $2`, [
      [`job:acme:${job}`, `fence|job:acme:${job}`],
      GROWN + 100,
    ]);
    expect(Number(newer[0]!.n)).toBe(2);

    // Every part put back as an older snapshot had it: the call's part says the first call is still live.
    for (const row of older.rows) await pair.a.pool.query(`UPDATE custodian_snapshots SET state = $2 WHERE stream = $1`, [row.stream, row.state]);
    const c = await startTestService({ shareWith: pair.a });
    try {
      await ticketsAsTheLog(c, job, minted);
    } finally {
      await c.stop();
    }

    // Every part edited: one byte of each call's ticket hash changed.
    await pair.a.pool.query(`UPDATE custodian_snapshots SET state = replace(state, '"ticket_hash":"', '"ticket_hash":"0') WHERE stream LIKE $1`, [
      `%job:acme:${job}#calls.%`,
    ]);
    const d = await startTestService({ shareWith: pair.a });
    try {
      await ticketsAsTheLog(d, job, minted);
      const retry = (await mint(d, job, last.step))!;
      expect(retry.key).toBe(last.key);
    } finally {
      await d.stop();
    }
    // A bound, not a timing: a grown job, a hundred mints one by one and two cold instances went past 60 s with both cores busy.
  }, 240_000);
});
