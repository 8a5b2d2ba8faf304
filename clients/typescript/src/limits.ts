/** The agent records limits, exact: at the limit passes, one past is refused. */
export const RECORD_LIMITS = Object.freeze({
  valueBytes: 65_536,
  recordsPerAgent: 10_000,
  collectionsPerAgent: 20,
  fieldsPerCollection: 8,
  idMaxChars: 128,
  fieldValueMaxChars: 256,
  queryDefault: 50,
  queryMax: 100,
});

export const COLLECTION_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
export const FIELD_NAME = /^[A-Za-z0-9_]+$/;
/** Keys no value, `where` or `after` may hold (refused at the edge): no field may be named so either. */
export const RESERVED_FIELD_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
// eslint-disable-next-line no-control-regex
export const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;

/** Characters as a person counts them: code points, not UTF-16 units. */
export const chars = (s: string) => [...s].length;
