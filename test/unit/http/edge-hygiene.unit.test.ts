import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { badText, depthExceeds, hygieneRefusal, MAX_DEPTH } from '../../../adapters/http/hygiene.ts';
import { canonicalJson } from '../../../domain/shared/hash.ts';

/** The edge's hygiene layer on its own: what it lets through, the export can always re-encode. */

/** Independent of the code under test: UTF-8 turns a lone surrogate into U+FFFD, so it does not round-trip. */
const wellFormed = (s: string) => Buffer.from(s, 'utf8').toString('utf8') === s;

const depthOf = (value: unknown): number => {
  let max = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (v && typeof v === 'object') {
      max = Math.max(max, d + 1);
      for (const c of Object.values(v)) stack.push([c, d + 1]);
    }
  }
  return max;
};

const values = fc.jsonValue({ maxDepth: 6 });
const hostileStrings = fc.string({ unit: 'binary', maxLength: 20 });
// -0 and 0 are one JSON number (RFC 8785 writes both as 0), so -0 is left out of the equality.
const numbers = fc.double().map((d) => (Object.is(d, -0) ? 0 : d));
const hostileValues = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    hostileStrings,
    numbers,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(hostileStrings, tie('value'), { maxKeys: 4 }),
  ),
})).value;

describe('edge hygiene', () => {
  it('whatever it lets through re-encodes exactly under the canonical JSON the export uses', () => {
    fc.assert(
      fc.property(hostileValues, (v) => {
        if (hygieneRefusal(v, '') !== null) return;
        const text = canonicalJson(v);
        expect(wellFormed(text)).toBe(true);
        expect(text.includes('\u0000')).toBe(false);
        expect(JSON.parse(text)).toEqual(v);
      }),
      { seed: 11, numRuns: 3000 },
    );
  });

  it('refuses exactly the strings with NUL or a lone surrogate', () => {
    fc.assert(
      fc.property(hostileStrings, (s) => {
        expect(badText(s) === null).toBe(wellFormed(s) && !s.includes('\u0000'));
      }),
      { seed: 12, numRuns: 5000 },
    );
  });

  it('measures depth on the text exactly as on the parsed value, strings with brackets and escapes included', () => {
    fc.assert(
      fc.property(values, (v) => {
        const text = JSON.stringify(v);
        expect(depthExceeds(text, 3)).toBe(depthOf(v) > 3);
      }),
      { seed: 13, numRuns: 3000 },
    );
    expect(depthExceeds('{"a":"[[[[\\"[[["}', 1)).toBe(false);
    expect(depthExceeds(`${'['.repeat(MAX_DEPTH + 1)}${']'.repeat(MAX_DEPTH + 1)}`)).toBe(true);
    expect(depthExceeds(`${'['.repeat(MAX_DEPTH)}${']'.repeat(MAX_DEPTH)}`)).toBe(false);
  });

  it('refuses 100,000-deep input without overflowing the stack', () => {
    const n = 100_000;
    expect(depthExceeds(`${'['.repeat(n)}${']'.repeat(n)}`)).toBe(true);
    let v: unknown = 1;
    for (let i = 0; i < n; i++) v = [v];
    expect(hygieneRefusal(v, '')).toMatchObject({ error: 'invalid', reason: `nested deeper than ${MAX_DEPTH}` });
  });

  it('refuses the reserved keys wherever they are, and keeps every other key', () => {
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      const v = JSON.parse(`{"a":[{"${key}":1}]}`);
      expect(hygieneRefusal(v, '')).toMatchObject({ error: 'invalid', field: `a[0].${key}` });
    }
    expect(hygieneRefusal(JSON.parse('{"proto":1,"Constructor":2,"__proto":3}'), '')).toBeNull();
  });
});
