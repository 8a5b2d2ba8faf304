import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { jobDecider } from '../../../domain/jobs/decide.ts';

import { specify } from '../../support/decider.ts';

import { evolveJob, initialJobState, liveCall, type JobState, type JobStreamEvent } from '../../../domain/jobs/state.ts';
import {
  keyedDelete,
  keyedEntries,
  keyedFrom,
  keyedGet,
  keyedParts,
  keyedSet,
  emptyKeyed,
  isKeyedShape,
  PartStub,
  PartsMissing,
  type Keyed,
} from '../../../domain/jobs/keyed.ts';
import { openPart, packJob, unpackJob, type PackedJob } from '../../../domain/jobs/snapshot.ts';
import { markWritten } from '../../../domain/shared/snapshot-parts.ts';
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

describe('job snapshots: a MACed head and parts named by digest', () => {
  const macOf = (input: string) => createHmac('sha256', 'tenant key').update(input).digest('base64url');
  const state = stateOf([...started, ...calls(5), ended('c3')]);
  /** Every part the head names, read into its stub from the texts packed (as a cold load reads them). */
  const readBack = (packed: PackedJob, stream: string, revision: number) => {
    const texts = new Map(packed.parts.map((p) => [p.key, p.text]));
    const snapshot = unpackJob(packed.head, stream, revision, macOf);
    if (!snapshot?.state.exists) throw new Error('no state');
    for (const name of ['calls', 'ended', 'steps'] as const)
      for (const [, stub] of keyedParts(snapshot.state[name] as Keyed<unknown>))
        if (stub instanceof PartStub) stub.node = openPart(stub, texts.get(stub.key)!) as PartStub['node'];
    return snapshot;
  };
  const content = (s: JobState) =>
    s.exists ? { ...s, calls: keyedEntries(s.calls).sort(), ended: keyedEntries(s.ended).sort(), steps: keyedEntries(s.steps).sort() } : s;

  it('given a state, when packed and read back for the same stream and revision, then it holds the same state', () => {
    const packed = packJob({ state, blocks: [1], marks: '1:99' }, 'job:acme:j1', 7, macOf);
    const back = readBack(packed, 'job:acme:j1', 7);
    expect([back.blocks, back.marks]).toEqual([[1], '1:99']);
    expect(content(back.state)).toEqual(content(state));
  });

  it('given a head read back, when a call is looked up before its part is read, then the part is named missing and nothing is guessed', () => {
    const packed = packJob({ state }, 'job:acme:j1', 7, macOf);
    const cold = unpackJob(packed.head, 'job:acme:j1', 7, macOf)!.state as Extract<JobState, { exists: true }>;
    expect(() => liveCall(cold, 'c1')).toThrow(PartsMissing);
    expect([cold.last_step, cold.calls.size, cold.ended.size]).toEqual([5, 4, 1]);
  });

  it('given a snapshot, when one byte of its head changes or it is read for another stream or revision, then it is not used', () => {
    const { head } = packJob({ state }, 'job:acme:j1', 7, macOf);
    expect(unpackJob(head.replace('"last_step":5', '"last_step":6'), 'job:acme:j1', 7, macOf)).toBeNull();
    expect(unpackJob(head, 'job:acme:j2', 7, macOf)).toBeNull();
    expect(unpackJob(head, 'job:acme:j1', 8, macOf)).toBeNull();
    expect(unpackJob(`9${head.slice(1)}`, 'job:acme:j1', 7, macOf)).toBeNull();
  });

  it('given a part whose text is not the one its head names (edited, or an older part put back), then it is not opened', () => {
    const packed = packJob({ state }, 'job:acme:j1', 7, macOf);
    const part = packed.parts.find((p) => p.text.includes('"h1"'))!;
    const stub = new PartStub(part.key, part.digest);
    expect(openPart(stub, part.text)).not.toBeNull();
    expect(openPart(stub, part.text.replace('"h1"', '"h0"'))).toBeNull();
    const later = packJob({ state: stateOf([...started, ...calls(5), ended('c3'), ended('c1')]) }, 'job:acme:j1', 9, macOf);
    const older = later.parts.find((p) => p.key === part.key);
    if (older && older.digest !== part.digest) expect(openPart(new PartStub(part.key, older.digest), part.text)).toBeNull();
  });

  it('given a long job, when one more call is minted, then the next snapshot writes only the parts that call changed and its head does not grow', () => {
    const history = [...started, ...calls(5000)];
    const big = stateOf(history);
    const written = new WeakMap<object, string>();
    const first = packJob({ state: big }, 'job:acme:j1', 5000, macOf, written);
    markWritten(written, first.parts);
    const next = packJob({ state: calls(1, 5001).reduce(evolveJob, big) }, 'job:acme:j1', 5001, macOf, written);
    expect(first.parts.length).toBeGreaterThan(400);
    expect(next.parts.length).toBeLessThanOrEqual(2);
    const small = packJob({ state: stateOf([...started, ...calls(20_000)]) }, 'job:acme:j1', 20_000, macOf);
    expect(small.head.length).toBeLessThan(first.head.length * 1.2);
  });

  it('given a snapshot whose parts were never noted written (their write failed), when the next is packed, then it writes them again', () => {
    const big = stateOf([...started, ...calls(5000)]);
    const written = new WeakMap<object, string>();
    const failed = packJob({ state: big }, 'job:acme:j1', 5000, macOf, written);
    const next = packJob({ state: calls(1, 5001).reduce(evolveJob, big) }, 'job:acme:j1', 5001, macOf, written);
    // Every part the failed one held that the new call did not change is written again, not only named.
    expect(next.parts.length).toBeGreaterThanOrEqual(failed.parts.length - 2);
  });
});
