/**
 * A refusal is a value, never an exception: the core answers "no" with a code and the
 * fields the caller needs to act. Transports decide how to carry it (adapters/http maps
 * codes to statuses).
 */
export type Refusal = { readonly error: string } & Readonly<Record<string, unknown>>;

export const refusal = <C extends string, F extends Record<string, unknown>>(
  error: C,
  fields?: F,
): { error: C } & F => ({ error, ...(fields ?? ({} as F)) });

export const invalid = (field: string, reason: string) => refusal('invalid', { field, reason });
export const notFound = (what: string) => refusal('not_found', { what });
