import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { jobDecider } from '../../../domain/jobs/decide.ts';

import { specify } from '../../support/decider.ts';

import { evolveJob, initialJobState, liveCall, type JobState, type JobStreamEvent } from '../../../domain/jobs/state.ts';
import { keyedDelete, keyedFrom, keyedGet, keyedSet, emptyKeyed, isKeyedShape } from '../../../domain/jobs/keyed.ts';
import { packJob, unpackJob } from '../../../domain/jobs/snapshot.ts';
import type { JobEvent } from '../../../domain/jobs/events.ts';
import { mint, request, start } from '../../support/jobs.ts';
const { given } = specify(jobDecider);
const started = given([]).when(start()).accepted();

/** A history of `n` calls minted one step after another, none ended. */
const calls = (n: number, from = 1): JobEvent[] =>
  Array.from({ length: n }, (_, i) => ({
    type: 'CallMinted',
    data: {
      tenant: 'acme',
      job: 'j1',
      run: 1,
      call: `c${from + i}`,
      step: from + i,
      function: 'save',
      ticket_hash: `h${from + i}`,
      idempotency_key: `k${from + i}`,
      startup: false,
      minted_ms: 2000,
    },
  }));
const ended = (call: string, reason: 'ended' | 'retried' = 'ended'): JobEvent => ({
  type: 'CallEnded',
  data: { tenant: 'acme', job: 'j1', call, reason, ended_ms: 3000 },
});
const stateOf = (history: readonly JobStreamEvent[]): Extract<JobState, { exists: true }> => {
  const s = history.reduce(evolveJob, initialJobState());
  if (!s.exists) throw new Error('no job');
  return s;
};

describe('job state: only what mint, the fence and admission need', () => {
  it('given calls minted and ended, when folded, then only the live calls stay whole and the ended keep their ids', () => {
    const s = stateOf([...started, ...calls(3), ended('c2')]);
    expect(s.calls.size).toBe(2);
    expect(liveCall(s, 'c1')).toMatchObject({ step: 1, idempotency_key: 'k1', ticket_hash: 'h1' });
    expect(liveCall(s, 'c2')).toBeUndefined();
    expect(s.ended.size).toBe(1);
    expect(s.last_step).toBe(3);
  });

  it('given a step whose calls all ended, when the step is retried, then the retry gets the step’s idempotency key', () => {
    given([...started, ...calls(3), ended('c2')])
      .when(mint({ call: 'c9', step: 2, newIdempotencyKey: 'fresh' }))
      .then([{ type: 'CallMinted', data: expect.objectContaining({ call: 'c9', step: 2, idempotency_key: 'k2' }) }]);
  });

  it('given a live call at a step, when the step is retried, then that call is ended as retried and the key is kept', () => {
    given([...started, ...calls(2)])
      .when(mint({ call: 'c9', step: 1, newIdempotencyKey: 'fresh' }))
      .then([
        { type: 'CallEnded', data: expect.objectContaining({ call: 'c1', reason: 'retried' }) },
        { type: 'CallMinted', data: expect.objectContaining({ call: 'c9', step: 1, idempotency_key: 'k1' }) },
      ]);
  });

  it('given steps minted out of order, when a call is minted without a step, then it takes the one after the highest', () => {
    given([...started, ...calls(1, 7), ...calls(1, 3)])
      .when(mint({ call: 'c9' }))
      .then([{ type: 'CallMinted', data: expect.objectContaining({ step: 8, idempotency_key: 'k1' }) }]);
  });

  it('given an ended call, when it is ended again, then nothing is written; an unknown call is not found', () => {
    given([...started, ...calls(2), ended('c1')])
      .when({ type: 'EndCall', job: 'j1', call: 'c1', now: 4000 })
      .thenNothing();
    given([...started, ...calls(2)])
      .when({ type: 'EndCall', job: 'j1', call: 'nope', now: 4000 })
      .then(expect.objectContaining({ error: 'not_found', what: 'call' }));
  });

  it('given live and ended calls, when the job ends, then exactly the live calls are ended with it', () => {
    given([...started, ...calls(3), ended('c2')])
      .when({ type: 'EndJob', job: 'j1', now: 4000 })
      .then([
        { type: 'CallEnded', data: expect.objectContaining({ call: 'c1', reason: 'job_ended' }) },
        { type: 'CallEnded', data: expect.objectContaining({ call: 'c3', reason: 'job_ended' }) },
        { type: 'JobEnded', data: expect.objectContaining({ run: 1 }) },
      ]);
  });

  it('given a job that ended, when the id starts again, then the new run has no calls, no ended calls and no steps', () => {
    const endedJob = given([...started, ...calls(2)])
      .when({ type: 'EndJob', job: 'j1', now: 3000 })
      .accepted();
    const again = given([...started, ...calls(2), ...endedJob])
      .when(start(request, 4000))
      .accepted();
    const s = stateOf([...started, ...calls(2), ...endedJob, ...again]);
    expect([s.calls.size, s.ended.size, s.steps.size, s.last_step]).toEqual([0, 0, 0, 0]);
  });

  it('given a long history, when folded, then every state along the way stays as it was (the fold copies no map in place)', () => {
    const history = [...started, ...calls(600)];
    const states: Extract<JobState, { exists: true }>[] = [];
    history.reduce<JobState>((s, e) => {
      const next = evolveJob(s, e);
      if (next.exists) states.push(next);
      return next;
    }, initialJobState());
    expect(states[100]!.calls.size).toBe(99);
    expect(liveCall(states[100]!, 'c300')).toBeUndefined();
    expect(liveCall(states.at(-1)!, 'c600')).toMatchObject({ step: 600 });
    expect(states.at(-1)!.calls.size).toBe(600);
  });
});

describe('keyed maps', () => {
  it('set, get and delete leave the map they were given unchanged', () => {
    const a = keyedSet(emptyKeyed<number>(), 5, 1);
    const b = keyedSet(a, 700, 2);
    const c = keyedDelete(b, 5);
    expect([keyedGet(a, 700), keyedGet(b, 700), keyedGet(c, 5), keyedGet(b, 5)]).toEqual([undefined, 2, undefined, 1]);
    expect([a.size, b.size, c.size]).toEqual([1, 2, 1]);
  });

  it('a set shares every path but its own with the map it was given (one entry costs the same in a map of any size)', () => {
    const big = keyedFrom(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i] as const));
    const next = keyedSet(big, 'k-new', 1);
    const shared = (a: readonly unknown[], b: readonly unknown[]): number => a.filter((child, i) => child === b[i]).length;
    // 16 slots a level: the new root shares 15 of them with the old one, and so down the path.
    expect(shared(next.root, big.root)).toBe(15);
    expect([next.size, keyedGet(next, 'k-new'), keyedGet(big, 'k-new'), keyedGet(next, 'k19999')]).toEqual([20_001, 1, undefined, 19_999]);
  });

  it('given snapshot text whose map is not the trie it claims, then the shape check refuses it', () => {
    const m = keyedFrom([['a', 1] as const, ['b', 2] as const]);
    expect(isKeyedShape(JSON.parse(JSON.stringify(m)))).toBe(true);
    expect(isKeyedShape({ ...m, size: 3 })).toBe(false);
    expect(isKeyedShape({ size: 0, buckets: {} })).toBe(false);
    expect(isKeyedShape({ size: 0, root: [] })).toBe(false);
  });

  it('keeps a key named like a prototype property as a plain entry', () => {
    const m = keyedFrom([['__proto__', 1] as const, ['constructor', 2] as const]);
    expect([keyedGet(m, '__proto__'), keyedGet(m, 'constructor'), keyedGet(m, 'toString'), m.size]).toEqual([1, 2, undefined, 2]);
  });
});

describe('job snapshots', () => {
  const macOf = (input: string) => createHmac('sha256', 'tenant key').update(input).digest('base64url');
  const state = stateOf([...started, ...calls(5), ended('c3')]);

  it('given a state, when packed and read back for the same stream and revision, then it is the same state', () => {
    const packed = packJob({ state, blocks: [1], marks: '1:99' }, 'job:acme:j1', 7, macOf);
    expect(unpackJob(packed, 'job:acme:j1', 7, macOf)).toEqual({ state, blocks: [1], marks: '1:99' });
  });

  it('given a snapshot, when one byte of its state changes or it is read for another stream or revision, then it is not used', () => {
    const packed = packJob({ state }, 'job:acme:j1', 7, macOf);
    expect(unpackJob(packed.replace('"h1"', '"h0"'), 'job:acme:j1', 7, macOf)).toBeNull();
    expect(unpackJob(packed, 'job:acme:j2', 7, macOf)).toBeNull();
    expect(unpackJob(packed, 'job:acme:j1', 8, macOf)).toBeNull();
    expect(unpackJob(`9${packed.slice(1)}`, 'job:acme:j1', 7, macOf)).toBeNull();
  });
});
