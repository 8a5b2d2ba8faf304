import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fastCanonicalize } from '../../../domain/shared/canonical-json.ts';

/** What the package answers, or the error it throws, to compare outcomes whole. */
const outcome = (f: (v: unknown) => string | undefined, value: unknown) => {
  try {
    return { text: f(value) };
  } catch (error) {
    return { threw: (error as Error).message };
  }
};

describe('fastCanonicalize: the same text as the canonicalize package', () => {
  it('given any JSON value (full Unicode, index-like keys, deep nesting), answers what the package answers', () => {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: 'binary', maxDepth: 6 }), (value) => {
        expect(fastCanonicalize(value)).toBe(canonicalize(value));
      }),
      { numRuns: 2000 },
    );
  });

  it('given a value read back from JSON text, answers what the package answers', () => {
    fc.assert(
      fc.property(fc.json({ stringUnit: 'grapheme' }), (text) => {
        const value: unknown = JSON.parse(text);
        expect(fastCanonicalize(value)).toBe(canonicalize(value));
      }),
      { numRuns: 1000 },
    );
  });

  it('given objects whose keys JavaScript enumerates out of RFC 8785 order, sorts them by UTF-16 code unit', () => {
    const value = { b: 1, '10': 2, '9': 3, a: [{ z: null, é: true, '\u{1F600}': 'x', '\uFFFF': 0 }] };
    expect(fastCanonicalize(value)).toBe('{"10":2,"9":3,"a":[{"z":null,"é":true,"\u{1F600}":"x","\uFFFF":0}],"b":1}');
    expect(fastCanonicalize(value)).toBe(canonicalize(value));
  });

  it('given a lone surrogate in a string or a key, throws as the package does', () => {
    for (const value of [{ a: 'x\uD800' }, { ['k\uDC00']: 1 }, ['\uDFFF']]) {
      expect(outcome(fastCanonicalize, value)).toEqual(outcome(canonicalize, value));
      expect(outcome(fastCanonicalize, value)).toHaveProperty('threw');
    }
  });

  it('given a literal backslash-u text (no surrogate), answers on the fast path the same text', () => {
    const value = { a: '\\ud800 is text', b: '\\uDFFF' };
    expect(fastCanonicalize(value)).toBe(canonicalize(value));
  });

  it('given what is not plain JSON data (toJSON, undefined, class instances, non-finite numbers, __proto__ keys, holes), answers or throws as the package does', () => {
    const protoKey = JSON.parse('{"__proto__": {"x": 1}, "a": 2}') as unknown;
    // eslint-disable-next-line no-sparse-arrays
    const holes = [1, , 3];
    class Point {
      constructor(
        readonly x: number,
        readonly y: number,
      ) {}
    }
    const cases: unknown[] = [
      { when: new Date(0) },
      { a: undefined, b: 1 },
      [undefined, () => 1],
      new Point(2, 1),
      { n: NaN },
      { n: Infinity },
      protoKey,
      holes,
      Object.assign(Object.create(null) as object, { b: 1, a: 2 }),
      -0,
      'plain',
      null,
      { big: 1e21, small: 1e-7, neg: -0.5 },
    ];
    for (const value of cases) expect(outcome(fastCanonicalize, value)).toEqual(outcome(canonicalize, value));
  });

  it('given nesting far deeper than any body may be (the edge refuses beyond 64), answers what the package answers', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 1_000; i++) deep = { d: [deep] };
    expect(fastCanonicalize(deep)).toBe(canonicalize(deep));
  });

  it('given nesting deeper than the call stack, answers or throws as the package does', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 20_000; i++) deep = { d: deep };
    expect(outcome(fastCanonicalize, deep)).toEqual(outcome(canonicalize, deep));
  });
});
