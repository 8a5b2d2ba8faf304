import { firstSentence } from './sentence.ts';
import { lineSpan, linesOf, type Part, type Shape } from './shape.ts';
import type { FitOptions, Fitted } from './types.ts';
import { fitShape } from './views.ts';

// A JSON value is read by its top-level keys or items, one indented line per value, so a line
// range means something even for JSON written on one line. That form is itself valid JSON.

const compact = (value: unknown): string => JSON.stringify(value) ?? 'null';
const LONGEST = 120;

const cut = (text: string): string => (text.length <= LONGEST ? text : `${Array.from(text).slice(0, LONGEST).join('')}…`);

/** The lines form: `{`, one `  "key": <compact value>,` line per key (or item), `}`. */
export const jsonLines = (value: unknown): string => {
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return ['[', ...value.map((v, i) => `  ${compact(v)}${i < value.length - 1 ? ',' : ''}`), ']'].join('\n');
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return '{}';
    return ['{', ...entries.map(([k, v], i) => `  ${JSON.stringify(k)}: ${compact(v)}${i < entries.length - 1 ? ',' : ''}`), '}'].join('\n');
  }
  return compact(value);
};

const describe = (value: unknown): string => {
  if (Array.isArray(value)) return `array of ${value.length} ${value.length === 1 ? 'item' : 'items'}`;
  if (value === null) return 'null';
  if (typeof value === 'object') {
    const keys = Object.keys(value as object);
    const shown = keys.slice(0, 6).join(', ');
    return `object with ${keys.length} ${keys.length === 1 ? 'key' : 'keys'}${keys.length > 0 ? `: ${shown}${keys.length > 6 ? ', …' : ''}` : ''}`;
  }
  if (typeof value === 'string') return `string of ${Array.from(value).length} characters`;
  return typeof value === 'number' || typeof value === 'boolean' ? compact(value) : typeof value;
};

const gist = (value: unknown): string => (typeof value === 'string' ? JSON.stringify(firstSentence([value]) || cut(value)) : cut(compact(value)));

export const shapeJson = (value: unknown): Shape => {
  const full = jsonLines(value);
  const lines = linesOf(full);
  const parts: Part[] = [];
  let kind = 'JSON value';
  let facts = describe(value);
  if (Array.isArray(value) && value.length > 0) {
    kind = 'JSON array';
    facts = `${value.length} ${value.length === 1 ? 'item' : 'items'}`;
    value.forEach((v, i) => {
      parts.push({
        title: `[${i}]`,
        outline: `[${i}] ${describe(v)} (line ${i + 2})`,
        summary: `  [${i}] ${gist(v)}`,
        spans: [[i + 1, i + 2]],
        names: [`[${i}]`],
      });
    });
  } else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    kind = 'JSON object';
    facts = `${entries.length} ${entries.length === 1 ? 'key' : 'keys'}`;
    entries.forEach(([k, v], i) => {
      const key = JSON.stringify(k);
      parts.push({
        title: k,
        outline: `${key}: ${describe(v)} (${lineSpan(i + 1, i + 2)})`,
        summary: `  ${key}: ${gist(v)}`,
        spans: [[i + 1, i + 2]],
        names: [k, key],
      });
    });
  }
  return { kind, full, lines, parts, facts, queries: 'a top-level key, an item such as [3], or a line range such as 120-180' };
};

/** Fits a JSON value, read by its top-level keys or items (one indented line per value). */
export const fitJson = (value: unknown, options: FitOptions = {}): Fitted => fitShape(shapeJson(value), options, 'the JSON');
