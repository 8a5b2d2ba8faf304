import { chars, RECORD_LIMITS } from './limits.ts';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type JsonObject = { [k: string]: Json };

export const isPlainObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A value's size as the limit counts it: the UTF-8 bytes of its JSON text. */
export const valueBytes = (v: Json) => new TextEncoder().encode(JSON.stringify(v)).length;

/** The JSON text a declared value is digested as, or null when the declaration refuses it (left out of the index). */
export const indexText = (v: Json | undefined, person: boolean): string | null => {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') return chars(v) <= RECORD_LIMITS.fieldValueMaxChars ? JSON.stringify(v) : null;
  if (person) return null;
  if (typeof v === 'number' || typeof v === 'boolean') return JSON.stringify(v);
  return null;
};

/** For each field in `people` and `fields`, the text to digest, for the values the declaration takes. */
export const indexTexts = (value: JsonObject, people: readonly string[], fields: readonly string[]): { field: string; text: string }[] => {
  const out: { field: string; text: string }[] = [];
  const seen = new Set<string>();
  for (const [names, person] of [
    [people, true],
    [fields, false],
  ] as const) {
    for (const field of names) {
      if (seen.has(field)) continue;
      seen.add(field);
      const text = indexText(Object.hasOwn(value, field) ? value[field] : undefined, person);
      if (text !== null) out.push({ field, text });
    }
  }
  return out;
};

/**
 * Every name a person goes by for forgetting: each given name, and for a phone number both
 * `phone:+1555…` and the bare `+1555…` (the seed's phone rule, both ways).
 */
export const personNames = (person: string, also: readonly string[] = []): string[] => {
  const names = new Set<string>();
  for (const name of [person, ...also]) {
    names.add(name);
    if (/^phone:\+[0-9]+$/.test(name)) names.add(name.slice('phone:'.length));
    else if (/^\+[0-9]+$/.test(name)) names.add(`phone:${name}`);
  }
  return [...names];
};
