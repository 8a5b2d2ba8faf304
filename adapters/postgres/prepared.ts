import { createHash } from 'node:crypto';
import type pg from 'pg';

const names = new Map<string, string>();

/**
 * A query as a named prepared statement: PostgreSQL plans it once per connection instead of
 * on every call. The name is derived from the text, so the same text always shares a plan.
 */
export const prepared = (text: string, values?: readonly unknown[]): pg.QueryConfig => {
  let name = names.get(text);
  if (!name) {
    name = `c_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    names.set(text, name);
  }
  return { name, text, values: values as unknown[] };
};
