import * as E from 'fp-ts/lib/Either.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { agentDecider, type CollectionCommand } from '../../../domain/collections/decide.ts';
import type { CollectionEvent } from '../../../domain/collections/events.ts';
import { RECORD_LIMITS } from '../../../domain/collections/limits.ts';
import { evolveAgent, indexed, initialAgentState, postingKey } from '../../../domain/collections/state.ts';
import { indexTexts, isPlainObject, personNames } from '../../../domain/collections/values.ts';
import { specify } from '../../support/decider.ts';

const { given } = specify(agentDecider);
const who = { tenant: 't1', agent: 'a1' };
// A stand-in for the tenant-keyed HMAC: distinct texts give distinct digests, which is all the decider relies on.
const digest = (text: string) => `d(${text})`;
const sealed = { k: 'k', n: 'n', c: 'c' };

const declare = (collections: { name: string; people?: string[]; fields?: string[] }[], now = 1): CollectionCommand => ({
  ...who,
  kind: 'declare',
  now,
  collections: collections.map((c) => ({ name: c.name, people: c.people ?? [], fields: c.fields ?? [] })),
  indexed: [],
});

const questions = { name: 'questions', people: ['buyer', 'seller'], fields: ['listing', 'status'] };
const declared = (): CollectionEvent[] =>
  given([])
    .when(declare([questions]))
    .accepted();

/** A put as the handler builds it: the index holds the declared values the declaration takes. */
const put = (
  id: string,
  value: Record<string, unknown>,
  opts: { now?: number; seq?: number; started_ms?: number; collection?: string } = {},
): CollectionCommand => ({
  ...who,
  kind: 'put',
  collection: opts.collection ?? 'questions',
  id,
  value,
  seq: opts.seq ?? 1,
  sealed,
  index: (isPlainObject(value) ? indexTexts(value, questions.people, questions.fields) : []).map((e) => ({ field: e.field, digest: digest(e.text) })),
  started_ms: opts.started_ms ?? null,
  now: opts.now ?? 10,
});

const putEvent = (id: string, created: number, value: Record<string, unknown> = {}): CollectionEvent => {
  const c = put(id, value, { now: created });
  if (c.kind !== 'put') throw new Error('unreachable');
  return {
    type: 'AgentRecordPut',
    data: { ...who, collection: 'questions', id, seq: 1, value: sealed, bytes: 2, index: [...c.index], created_ms: created, updated_ms: created },
  };
};

const forget = (person: string, also: string[] = [], now = 100): CollectionCommand => ({
  ...who,
  kind: 'forget',
  names: personNames(person, also).map((n) => digest(JSON.stringify(n))),
  now,
});

describe('agent collections decider: declarations', () => {
  it('given nothing, when a collection is declared, then it is declared', () => {
    given([])
      .when(declare([questions]))
      .then([{ type: 'AgentCollectionsDeclared', data: { ...who, collections: [questions], indexed: [], declared_ms: 1 } }]);
  });

  it('given the same declaration, when it is sent again, then nothing is written', () => {
    given(declared())
      .when(declare([questions]))
      .thenNothing();
  });

  it('given a declaration, when an older one lacks a field, then nothing is taken away', () => {
    const h = declared();
    given(h)
      .when(declare([{ name: 'questions', people: ['buyer'] }]))
      .thenNothing();
    const state = given(h).when(declare([])).state;
    expect(state.collections.get('questions')).toEqual({ people: ['buyer', 'seller'], fields: ['listing', 'status'] });
  });

  it('exactly 20 collections pass, 21 are refused whole', () => {
    const names = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `c${i}` }));
    given([])
      .when(declare(names(20)))
      .accepted();
    expect(
      given([])
        .when(declare(names(21)))
        .refused(),
    ).toEqual({
      error: 'invalid',
      message: 'records: 21 collections declared: declare at most 20 (collections declared before stay declared)',
    });
    const twenty = given([])
      .when(declare(names(20)))
      .accepted();
    given(twenty)
      .when(declare([{ name: 'more' }]))
      .then(expect.objectContaining({ error: 'invalid' }));
  });

  it('exactly 8 fields pass, 9 are refused, counting people and fields together and what was declared before', () => {
    const f = (n: number) => Array.from({ length: n }, (_, i) => `f${i}`);
    given([])
      .when(declare([{ name: 'c', people: f(3), fields: f(8).slice(3) }]))
      .accepted();
    expect(
      given([])
        .when(declare([{ name: 'c', people: f(3), fields: f(9).slice(3) }]))
        .refused(),
    ).toEqual({ error: 'invalid', message: expect.stringMatching(/^records: c declares 9 fields: declare at most 8/) });
    const eight = given([])
      .when(declare([{ name: 'c', fields: f(8) }]))
      .accepted();
    expect(
      given(eight)
        .when(declare([{ name: 'c', fields: ['other'] }]))
        .refused().error,
    ).toBe('invalid');
  });

  it('refuses names past the patterns and a field listed twice', () => {
    for (const name of ['1abc', 'a b', '', 'a'.repeat(65), 'a.b'])
      expect(
        given([])
          .when(declare([{ name }]))
          .refused().error,
      ).toBe('invalid');
    given([])
      .when(declare([{ name: 'a'.repeat(64) }]))
      .accepted();
    for (const field of ['a.b', 'a-b', '', 'ä'])
      expect(
        given([])
          .when(declare([{ name: 'c', fields: [field] }]))
          .refused().error,
      ).toBe('invalid');
    expect(
      given([])
        .when(declare([{ name: 'c', people: ['x'], fields: ['x'] }]))
        .refused().message,
    ).toBe('records: c lists x twice: list it once, in people or in fields');
  });

  it('a declaration that adds a field carries the index of the records already kept', () => {
    const h = [...declared(), putEvent('q1', 5, { note: 'x' })];
    const c = declare([{ ...questions, fields: [...questions.fields, 'note'] }]);
    const withIndex = { ...c, indexed: [{ collection: 'questions', id: 'q1', index: [{ field: 'note', digest: 'd("x")' }] }] } as CollectionCommand;
    const [event] = given(h).when(withIndex).accepted();
    expect(event).toMatchObject({ data: { indexed: [{ id: 'q1', index: [{ field: 'note' }] }] } });
    const state = given([...h, event!]).when(declare([])).state;
    expect(indexed(state.records.get('questions/q1')!, 'note')).toBe('d("x")');
    // The query index finds it by that value.
    expect(state.postings.get(postingKey('questions', 'note', 'd("x")'))?.map((p) => p.id)).toEqual(['q1']);
  });
});

describe('agent collections decider: puts', () => {
  it('refuses a put into a collection never declared, naming it (the message is made for the surface that asked)', () => {
    given([]).when(put('q1', {})).then({ error: 'not_found', what: 'collection', collection: 'questions' });
  });

  it('keeps createdAt from the first put when a value is replaced', () => {
    const h = [...declared(), putEvent('q1', 5)];
    const [replaced] = given(h)
      .when(put('q1', { status: 'answered' }, { now: 50 }))
      .accepted();
    expect(replaced).toMatchObject({ data: { created_ms: 5, updated_ms: 50 } });
  });

  it('gives every new record a later createdAt than any before it, even within one millisecond', () => {
    const h = [...declared(), putEvent('q1', 50)];
    const [next] = given(h)
      .when(put('q0', {}, { now: 50 }))
      .accepted();
    expect(next).toMatchObject({ data: { created_ms: 51 } });
  });

  it('id: 1 and 128 characters pass; 0, 129 and a control character are refused', () => {
    const h = declared();
    given(h).when(put('x', {})).accepted();
    given(h)
      .when(put('é'.repeat(128), {}))
      .accepted();
    expect(given(h).when(put('', {})).refused()).toEqual({ error: 'invalid', message: 'records: id has 0 characters: use 1 to 128 characters' });
    expect(
      given(h)
        .when(put('x'.repeat(129), {}))
        .refused().message,
    ).toBe('records: id has 129 characters: use 1 to 128 characters');
    expect(given(h).when(put('a\nb', {})).refused().message).toBe('records: id holds a control character: remove it');
  });

  it('value: exactly 65,536 bytes pass, one more is refused', () => {
    const h = declared();
    const sized = (n: number) => ({ pad: 'x'.repeat(n - '{"pad":""}'.length) });
    expect(JSON.stringify(sized(RECORD_LIMITS.valueBytes)).length).toBe(65_536);
    given(h)
      .when(put('q', sized(65_536)))
      .accepted();
    expect(
      given(h)
        .when(put('q', sized(65_537)))
        .refused(),
    ).toEqual({
      error: 'too_large',
      message: 'records: value is 65,537 bytes as JSON: keep it to 65,536 bytes or less',
    });
  });

  it('value must be a plain object', () => {
    const h = declared();
    for (const value of [[], null, 1, 'x'])
      expect(
        given(h)
          .when(put('q', value as never))
          .refused().error,
      ).toBe('invalid');
  });

  it('a declared string of 256 characters passes, 257 is refused; an undeclared one may be longer', () => {
    const h = declared();
    given(h)
      .when(put('q', { status: 's'.repeat(256), other: 'o'.repeat(1000) }))
      .accepted();
    expect(
      given(h)
        .when(put('q', { status: 's'.repeat(257) }))
        .refused().message,
    ).toBe('records: questions.status is 257 characters: keep a declared field to 256 characters, or leave it undeclared');
  });

  it('a number in a people field stays in the record and out of the index', () => {
    const [event] = given(declared())
      .when(put('q', { buyer: 5, status: 5 }))
      .accepted();
    expect(event).toMatchObject({ data: { index: [{ field: 'status', digest: 'd(5)' }] } });
  });

  it('10,000 records: a new one past them is refused, replacing one still works, a delete makes room', () => {
    const h = [...declared(), ...Array.from({ length: RECORD_LIMITS.recordsPerAgent }, (_, i) => putEvent(`q${i}`, i + 1))];
    expect(given(h).when(put('new', {})).refused()).toEqual({
      error: 'full',
      message: 'records: the agent holds 10,000 records: delete records it no longer needs, or keep that data in your own database',
    });
    given(h)
      .when(put('q7', { status: 'answered' }))
      .accepted();
    const deleted = given(h)
      .when({ ...who, kind: 'delete', collection: 'questions', id: 'q7', now: 1 })
      .accepted();
    given([...h, ...deleted])
      .when(put('new', {}))
      .accepted();
  });
});

describe('agent collections decider: deletes and forgetting', () => {
  it('a delete of a kept record writes it; of a missing one, nothing', () => {
    const h = [...declared(), putEvent('q1', 5)];
    const del = (id: string): CollectionCommand => ({ ...who, kind: 'delete', collection: 'questions', id, now: 9 });
    given(h)
      .when(del('q1'))
      .then([{ type: 'AgentRecordDeleted', data: { ...who, collection: 'questions', id: 'q1', deleted_ms: 9 } }]);
    given(h).when(del('q2')).thenNothing();
  });

  it('forgets every record naming the person in a people field, by either form of a phone number, and keeps one naming them elsewhere', () => {
    const h = [
      ...declared(),
      putEvent('bare', 1, { buyer: '+15550100100' }),
      putEvent('prefixed', 2, { seller: 'phone:+15550100100' }),
      putEvent('other', 3, { buyer: 'phone:+15550100199' }),
      putEvent('undeclared', 4, { note: 'phone:+15550100100' }),
      putEvent('status', 5, { status: 'phone:+15550100100' }),
    ];
    const [forgot] = given(h).when(forget('phone:+15550100100')).accepted();
    expect(forgot).toMatchObject({
      data: {
        records: [
          { collection: 'questions', id: 'bare' },
          { collection: 'questions', id: 'prefixed' },
        ],
      },
    });
    const [byBare] = given(h).when(forget('+15550100100')).accepted();
    expect(byBare).toMatchObject({ data: { records: [{ id: 'bare' }, { id: 'prefixed' }] } });
    const [byAlso] = given(h)
      .when(forget('someone', ['phone:+15550100199']))
      .accepted();
    expect(byAlso).toMatchObject({ data: { records: [{ id: 'other' }] } });
  });

  it('a put naming a forgotten person from a tool started before the forget is refused; one started after is kept', () => {
    const h = [
      ...declared(),
      ...given(declared())
        .when(forget('maria', [], 100))
        .accepted(),
    ];
    given(h)
      .when(put('q', { buyer: 'maria' }, { started_ms: 99, now: 101 }))
      .then({ error: 'forgotten', message: 'records: not kept: the person was forgotten while the tool ran' });
    given(h)
      .when(put('q', { buyer: 'maria' }, { started_ms: 100, now: 101 }))
      .accepted();
    given(h)
      .when(put('q', { note: 'maria' }, { started_ms: 1, now: 101 }))
      .accepted();
  });
});

describe('agent collections decider: properties', () => {
  const fold = (events: readonly CollectionEvent[]) => events.reduce(evolveAgent, initialAgentState());

  it('whatever the order of puts and deletes, a new record is kept exactly while the agent holds fewer than 10,000', () => {
    // Five below the limit, so random puts and deletes cross it both ways.
    const base = [...declared(), ...Array.from({ length: RECORD_LIMITS.recordsPerAgent - 5 }, (_, i) => putEvent(`base${i}`, i + 1))];
    const baseState = fold(base);
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 20 })), { maxLength: 60 }), (ops) => {
        const state = fold(base);
        expect(state.records.size).toBe(baseState.records.size);
        let now = 1_000_000;
        for (const [isPut, n] of ops) {
          const c: CollectionCommand = isPut ? put(`x${n}`, {}, { now: now++ }) : { ...who, kind: 'delete', collection: 'questions', id: `x${n}`, now: now++ };
          const before = state.records.size;
          const existed = state.records.has(`questions/x${n}`);
          const d = agentDecider.decide(c, state);
          if (isPut) expect(E.isRight(d)).toBe(existed || before < RECORD_LIMITS.recordsPerAgent);
          if (E.isRight(d)) d.right.forEach((e) => evolveAgent(state, e));
          expect(state.records.size).toBeLessThanOrEqual(RECORD_LIMITS.recordsPerAgent);
        }
      }),
      { numRuns: 30 },
    );
  });

  it('ids pass exactly when they have 1 to 128 code points and no control character', () => {
    const state = fold(declared());
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 140 }), (id) => {
        const ok =
          [...id].length >= 1 &&
          [...id].length <= 128 &&
          ![...id].some((ch) => ch.codePointAt(0)! < 0x20 || (ch.codePointAt(0)! >= 0x7f && ch.codePointAt(0)! <= 0x9f));
        expect(E.isRight(agentDecider.decide(put(id, {}), state))).toBe(ok);
      }),
    );
  });

  it('declarations never take a field away and never exceed the limits', () => {
    const field = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j');
    const decl = fc.record({
      name: fc.constantFrom('p', 'q'),
      people: fc.uniqueArray(field, { maxLength: 4 }),
      fields: fc.uniqueArray(field, { maxLength: 6 }),
    });
    fc.assert(
      fc.property(fc.array(decl, { maxLength: 8 }), (decls) => {
        const state = fold([]);
        for (const d of decls) {
          const before = new Map([...state.collections].map(([k, v]) => [k, new Set([...v.people, ...v.fields])]));
          const r = agentDecider.decide(declare([d]), state);
          if (E.isRight(r)) r.right.forEach((e) => evolveAgent(state, e));
          for (const [name, fields] of before)
            for (const f of fields) expect([...state.collections.get(name)!.people, ...state.collections.get(name)!.fields]).toContain(f);
          for (const v of state.collections.values()) expect(v.people.length + v.fields.length).toBeLessThanOrEqual(8);
        }
      }),
    );
  });
});
