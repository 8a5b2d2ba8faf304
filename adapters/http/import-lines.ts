import { z } from 'zod';
import { invalid, type Refusal } from '../../domain/shared/refusal.ts';
import { PLUGIN_NAME } from '../../domain/shared/names.ts';
import { bodyOverLimit, RECORD_KEY, RECORD_SCOPE } from '../../domain/records/rules.ts';

const ms = z.number().int().min(0).max(8.64e15);
const word = z.string().min(1).max(64);

/**
 * One exported version as an import takes it: the fields an export writes, each of the type
 * the log and its read models store (a version is a PostgreSQL int, a time a whole number of
 * milliseconds). Fields an export does not write are ignored.
 */
const ImportLine = z.object({
  plugin: z.string().regex(PLUGIN_NAME, 'a plugin name is 1–63 of [a-z0-9_-]'),
  scope: z.string().regex(RECORD_SCOPE, 'a scope is tenant, project:<name> or agent:<name>'),
  key: z.string().regex(RECORD_KEY, 'a key is 1–200 of [A-Za-z0-9._:@/+=-]'),
  version: z
    .number()
    .int()
    .min(1)
    .max(2 ** 31 - 1),
  body: z.record(z.string(), z.unknown()),
  kind: word,
  state: word,
  supersedes: z.string().regex(RECORD_KEY).nullable(),
  ends_at: ms,
  subject_kind: z.enum(['work', 'person']),
  purpose: z.string(),
  closed: z.boolean(),
  labels: z.array(z.string()),
  created_ms: ms,
});

/**
 * Why an export's lines (the manifest line last, left to the import) cannot be loaded, or null:
 * a line of the wrong shape, a body over a put's limit, or a version that appears twice.
 * Checked before anything is written, so a bad line refuses the whole import instead of
 * failing part-way through it.
 */
export const importLinesRefusal = (text: string): Refusal | null => {
  const lines = text.split('\n');
  while (lines.length > 0 && lines.at(-1) === '') lines.pop();
  lines.pop();
  const seen = new Set<string>();
  for (const [i, l] of lines.entries()) {
    if (l.length === 0) continue;
    let value: unknown;
    try {
      value = JSON.parse(l);
    } catch {
      // Left to the import, which refuses a file that is not JSON Lines.
      return null;
    }
    const parsed = ImportLine.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return invalid([`line ${i + 1}`, ...issue.path.map(String)].join('.'), issue.message);
    }
    const { plugin, scope, key, version, body } = parsed.data;
    // A put's limit: no export holds a larger body, and an import is no way around it (nor
    // past the size one event can hold, where the scope's commit failed after the ones before it).
    const over = bodyOverLimit(JSON.stringify(body));
    if (over !== null) return invalid(`line ${i + 1}.body`, over);
    const id = JSON.stringify([plugin, scope, key, version]);
    if (seen.has(id)) return invalid(`line ${i + 1}`, `version ${version} of ${plugin}/${scope}/${key} appears twice`);
    seen.add(id);
  }
  return null;
};
