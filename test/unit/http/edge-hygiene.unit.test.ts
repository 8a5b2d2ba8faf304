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

  it('names the field at fault by its whole path from the root, as a walk that spells every path on its way would', () => {
    // The oracle: the walk in the same order, the path of every value spelled as it is pushed.
    const spelled = (parent: string, key: string | number) => (typeof key === 'number' ? `${parent}[${key}]` : parent === '' ? key : `${parent}.${key}`);
    const oracle = (value: unknown, root: string, maxDepth: number) => {
      const stack: { v: unknown; path: string; depth: number }[] = [{ v: value, path: root, depth: 0 }];
      while (stack.length > 0) {
        const { v, path, depth } = stack.pop()!;
        if (typeof v === 'string') {
          if (badText(v)) return path || 'body';
          continue;
        }
        if (typeof v === 'number' && (!Number.isFinite(v) || Math.abs(v) > Number.MAX_SAFE_INTEGER)) return path || 'body';
        if (v === null || typeof v !== 'object') continue;
        if (depth >= maxDepth) return path || 'body';
        if (Array.isArray(v)) {
          v.forEach((c, i) => stack.push({ v: c, path: spelled(path, i), depth: depth + 1 }));
          continue;
        }
        for (const key of Object.keys(v)) {
          if (badText(key)) return path === '' ? 'body' : path;
          if (['__proto__', 'constructor', 'prototype'].includes(key)) return spelled(path, key);
          stack.push({ v: (v as Record<string, unknown>)[key], path: spelled(path, key), depth: depth + 1 });
        }
      }
      return null;
    };
    const keys = fc.oneof(hostileStrings, fc.constantFrom('a', 'constructor', 'prototype', '__proto__', 'x\u0000'));
    const tree = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        hostileStrings,
        numbers,
        fc.constantFrom(1e300, 2 ** 60, null, true),
        fc.array(tie('value'), { maxLength: 3 }),
        fc.dictionary(keys, tie('value'), { maxKeys: 3 }).map((d) => JSON.parse(JSON.stringify(d)) as unknown),
      ),
    })).value;
    fc.assert(
      fc.property(tree, fc.constantFrom('', 'query', 'line 3'), fc.integer({ min: 1, max: 4 }), (v, root, maxDepth) => {
        expect(hygieneRefusal(v, root, maxDepth)?.field ?? null).toBe(oracle(v, root, maxDepth));
      }),
      { seed: 14, numRuns: 5000 },
    );
  });
});
