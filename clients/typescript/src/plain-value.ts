import { refuse } from './errors.ts';

/** Keys the service refuses anywhere in a value (JSON keeps them; objects built by assignment do not). */
const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

const pathOf = (path: string, key: string) => (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`);

/**
 * The value as JSON will carry it, or a RecordsError (`invalid`, status 0) naming the first path
 * JSON would change: a Date, NaN, Infinity, a Map or Set, a class instance, a function,
 * `undefined` inside a list. Keys whose value is `undefined` are dropped, as JSON.stringify drops them.
 */
export const plainValue = (v: unknown, path = 'value'): unknown => {
  const wrong = (what: string, change: string) => refuse('invalid', `records: ${path} is ${what}: ${change}`, { field: path });
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      return Number.isFinite(v) ? v : wrong(String(v), 'keep only finite numbers');
    case 'undefined':
      return wrong('undefined', 'leave the item out of the list, or use null');
    case 'function':
      return wrong('a function', 'keep only JSON data');
    case 'bigint':
    case 'symbol':
      return wrong(`a ${typeof v}`, 'keep only JSON data (a bigint as text)');
  }
  if (v === null) return null;
  if (v instanceof Date) return wrong('a Date', 'keep a time as milliseconds (Date.now()) or ISO text');
  if (v instanceof Map || v instanceof Set) return wrong(`a ${v instanceof Map ? 'Map' : 'Set'}`, 'keep a plain object or a list');
  if (Array.isArray(v)) return v.map((item, i) => plainValue(item, `${path}[${i}]`));
  const proto = Object.getPrototypeOf(v) as unknown;
  // `{ __proto__: {...} }` written as a literal: the key became a prototype of plain data.
  if (proto !== Object.prototype && proto !== null && !Object.hasOwn(proto as object, 'constructor')) {
    const at = pathOf(path, '__proto__');
    return refuse('invalid', `records: ${at} is a reserved key: rename it`, { field: at });
  }
  if (proto !== Object.prototype && proto !== null) return wrong(`an instance of ${(v as object).constructor?.name ?? 'a class'}`, 'keep a plain object');
  const out: Record<string, unknown> = {};
  for (const [k, item] of Object.entries(v as Record<string, unknown>)) {
    // As the service refuses them: assigned, `__proto__` would set a prototype and vanish from the JSON.
    if (RESERVED_KEYS.has(k)) {
      const at = pathOf(path, k);
      return refuse('invalid', `records: ${at} is a reserved key: rename it`, { field: at });
    }
    if (item !== undefined) out[k] = plainValue(item, pathOf(path, k));
  }
  return out;
};
