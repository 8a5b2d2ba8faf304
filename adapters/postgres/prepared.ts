import { createHash } from 'node:crypto';
import type pg from 'pg';

/**
 * At most this many texts are prepared (named) in a process; a text first sent after them runs
 * unnamed, planned on each call. Each named text stays prepared on every connection that ran it
 * for the connection's life, so a text built from request values (a filter's shape, a limit)
 * must not grow that set without bound (a list of records prepares one text a filter shape).
 */
export const MAX_PREPARED_TEXTS = 1000;

const names = new Map<string, string>();

/**
 * A query as a named prepared statement: PostgreSQL plans it once per connection instead of
 * on every call. The name is derived from the text, so the same text always shares a plan.
 */
export const prepared = (text: string, values?: readonly unknown[]): pg.QueryConfig => {
  let name = names.get(text);
  if (!name) {
    if (names.size >= MAX_PREPARED_TEXTS) return { text, values: values as unknown[] };
    name = `c_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    names.set(text, name);
  }
  return { name, text, values: values as unknown[] };
};

/** The texts this process prepares (tests). */
export const preparedTexts = (): readonly string[] => [...names.keys()];
