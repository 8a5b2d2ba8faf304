import { invalid, type Refusal } from '../../domain/shared/refusal.ts';
import { depthExceeds, MAX_DEPTH } from '../../domain/shared/json-depth.ts';

/**
 * One input-hygiene layer for everything that enters through HTTP: bodies, query strings
 * and path parameters. What it refuses would otherwise reach PostgreSQL (which refuses NUL
 * in text), the canonical JSON of exports (which refuses lone surrogates), or a schema
 * validator that recurses (and so overflows on deep input). Every walk here uses an
 * explicit stack, never recursion, so hostile depth cannot exhaust the call stack.
 */

export { MAX_DEPTH };

/**
 * Keys refused everywhere: JSON.parse keeps `__proto__` as an own key, but object spreads
 * and schema validators rebuild objects by assignment, which turns it into a prototype
 * change and silently drops it. Refusing the three names keeps a stored body exactly what
 * was acknowledged.
 */
export const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

// A high surrogate not followed by a low one, or a low surrogate not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a string cannot be stored or re-encoded, or null when it can. */
export const badText = (s: string): string | null => {
  if (s.includes('\u0000')) return 'contains U+0000 (NUL)';
  if (LONE_SURROGATE.test(s)) return 'contains a lone surrogate (not valid Unicode)';
  return null;
};

export { depthExceeds };

const pathOf = (parent: string, key: string | number): string => (typeof key === 'number' ? `${parent}[${key}]` : parent === '' ? key : `${parent}.${key}`);

/** A value the walk is at: where it sits is kept as its parent and key, spelled only for a refusal. */
interface Step {
  readonly v: unknown;
  readonly up: Step | null;
  readonly key: string | number;
  readonly depth: number;
}

/** The path of a step from `root`, as `pathOf` spells it one level at a time. */
const pathAt = (step: Step, root: string): string => {
  const keys: (string | number)[] = [];
  for (let at: Step | null = step; at?.up; at = at.up) keys.push(at.key);
  let path = root;
  for (let i = keys.length - 1; i >= 0; i--) path = pathOf(path, keys[i]!);
  return path;
};

/**
 * Walks a parsed value (explicit stack) and answers the first refusal: a string or key
 * with NUL or a lone surrogate, a reserved key, a number JSON cannot carry back (`1e999`
 * parses to Infinity, which would be stored as null), or nesting deeper than `MAX_DEPTH`. The
 * field is a path from `root` (`body.notes[2].text`, `query.kind`, `params.t`), spelled only
 * when there is a refusal (not once per value of every body).
 */
export const hygieneRefusal = (value: unknown, root: string, maxDepth = MAX_DEPTH): Refusal | null => {
  const stack: Step[] = [{ v: value, up: null, key: '', depth: 0 }];
  while (stack.length > 0) {
    const step = stack.pop()!;
    const { v, depth } = step;
    if (typeof v === 'string') {
      const why = badText(v);
      if (why) return invalid(pathAt(step, root) || 'body', why);
      continue;
    }
    if (typeof v === 'number' && !Number.isFinite(v)) return invalid(pathAt(step, root) || 'body', 'a number too large to store');
    // Past 2^53 − 1 a number is not kept exactly (12345678901234567890123 would come back
    // as 1.2345678901234568e+22): refused rather than altered after a 200. (-0 is kept as 0,
    // as JSON and RFC 8785 read it.)
    if (typeof v === 'number' && Math.abs(v) > Number.MAX_SAFE_INTEGER)
      return invalid(pathAt(step, root) || 'body', `a number beyond ±${Number.MAX_SAFE_INTEGER} cannot be kept exactly`);
    if (v === null || typeof v !== 'object') continue;
    if (depth >= maxDepth) return invalid(pathAt(step, root) || 'body', `nested deeper than ${maxDepth}`);
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push({ v: v[i], up: step, key: i, depth: depth + 1 });
      continue;
    }
    for (const key of Object.keys(v)) {
      const why = badText(key);
      if (why) {
        const path = pathAt(step, root);
        return invalid(path === '' ? 'body' : path, `a key ${why}`);
      }
      if (RESERVED_KEYS.has(key)) return invalid(pathOf(pathAt(step, root), key), `the key "${key}" is reserved; rename it`);
      stack.push({ v: (v as Record<string, unknown>)[key], up: step, key, depth: depth + 1 });
    }
  }
  return null;
};

/**
 * An export loaded back goes through the same hygiene, line by line, so an import cannot
 * store what the records API refuses. A record body sits a few levels down in its line, so
 * the line may be that much deeper. A line that is not JSON is left to the import to refuse.
 */
export const importRefusal = (text: string): Refusal | null => {
  const maxDepth = MAX_DEPTH + 8;
  let line = 0;
  for (let start = 0; start < text.length; line++) {
    const end = text.indexOf('\n', start);
    const l = text.slice(start, end < 0 ? text.length : end);
    start = end < 0 ? text.length : end + 1;
    if (l.length === 0) continue;
    if (depthExceeds(l, maxDepth)) return invalid(`line ${line + 1}`, `nested deeper than ${maxDepth}`);
    let value: unknown;
    try {
      value = JSON.parse(l);
    } catch {
      continue;
    }
    const bad = hygieneRefusal(value, `line ${line + 1}`, maxDepth);
    if (bad) return bad;
  }
  return null;
};
