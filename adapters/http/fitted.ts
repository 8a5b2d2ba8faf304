import * as E from 'fp-ts/lib/Either.js';
import { z } from 'zod';
import { fitItems, rangeOf, type ItemsAsk } from '../../clients/typescript/src/fit/items.ts';
import { VIEWS, type View } from '../../clients/typescript/src/fit/types.ts';
import { FitParams } from './fit-params.ts';
import { invalid, type Refusal } from '../../domain/shared/refusal.ts';
import { encodeCursor, type RecordView } from '../../queries/records.ts';

/**
 * The service's own fitted answers (SPEC §13): records history and list, audit replay and
 * export. Each is fitted after it was built, by whole items: a record, a version, an entry,
 * an export line is never cut.
 */

const FitFields = z.object(FitParams);

/** The fit parameters asked for, none (an unfitted answer, as before), or which one is wrong. */
export const fitAskOf = (raw: { view?: unknown; budget?: unknown; query?: unknown }): E.Either<Refusal, ItemsAsk | null> => {
  const { view, budget, query } = raw;
  if (view === undefined && budget === undefined && query === undefined) return E.right(null);
  const parsed = FitFields.safeParse({ view, budget, query });
  if (!parsed.success) {
    const field = String(parsed.error.issues[0]!.path[0] ?? 'view');
    const reason =
      field === 'view'
        ? `view is one of ${VIEWS.join(', ')}`
        : field === 'budget'
          ? 'a budget is a whole number of tokens, 0 or more'
          : 'a query is 1–500 characters';
    return E.left(invalid(field, reason));
  }
  return E.right(parsed.data);
};

/**
 * Splits a records request body into the request the records API parses and the fit
 * parameters (top-level beside `op`, for history and list only; on put and get they stay in
 * the body, where the strict request shape refuses them as unknown fields).
 */
export const splitRecordsBody = (body: unknown): { body: unknown; ask: E.Either<Refusal, ItemsAsk | null> } => {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { body, ask: E.right(null) };
  const { view, budget, query, ...rest } = body as Record<string, unknown>;
  if (rest['op'] !== 'history' && rest['op'] !== 'list') return { body, ask: E.right(null) };
  // A JSON body's budget is a number; only a query string's is coerced from text.
  if (budget !== undefined && typeof budget !== 'number')
    return { body: rest, ask: E.left(invalid('budget', 'a budget is a whole number of tokens, 0 or more')) };
  return { body: rest, ask: fitAskOf({ view, budget, query }) };
};

const withoutBody = (r: RecordView) => {
  const { body, ...meta } = r;
  return { ...meta, body_keys: typeof body === 'object' && body !== null && !Array.isArray(body) ? Object.keys(body) : [] };
};
const recordLabel = (r: RecordView) => `${r.scope}/${r.key} v${r.version} ${r.kind} ${r.state}`;

/** A history, fitted: versions newest first; a query is a version (`3`) or a range of versions (`2-5`). */
export const fitHistory = (answer: { records: RecordView[] }, ask: ItemsAsk) => {
  const f = fitItems<RecordView>(
    {
      items: answer.records,
      full: (r) => r,
      summary: withoutBody,
      label: recordLabel,
      matches: (r, q) => {
        const range = rangeOf(q);
        return range ? r.version >= range.from && r.version <= range.to : /^\d+$/.test(q.trim()) && r.version === Number(q);
      },
      name: 'the history',
      unit: 'version',
      more: (next) => `ask query=1-${next.version} for the older versions`,
      queries: 'a version such as 3, or versions such as 2-5',
    },
    ask,
  );
  return { records: f.rendered, ...(f.outline !== null ? { outline: f.outline } : {}), more: f.more, fit: f.fit };
};

type ListOrder = 'key' | 'created' | '-created';

/**
 * A list page, fitted: whole records in the page's order; cut by a bound it sets `more` and a
 * `next` cursor after the last record returned. A query is a key, `<scope>/<key>`, or positions
 * in the page (`1-20`).
 */
export const fitList = (
  answer: { records: RecordView[]; withheld: number; next?: string; more: boolean },
  ask: ItemsAsk,
  request: { order?: ListOrder | undefined; cursor?: string | undefined },
) => {
  const order = request.order ?? 'key';
  const cursorAfter = (r: RecordView) => encodeCursor({ o: order, c: r.created_ms, s: r.scope, k: r.key });
  // Before every record (scopes and keys are never empty): a first page that returned none reads on from the top.
  const fromTheStart = (o: ListOrder) => encodeCursor({ o, c: o === '-created' ? Number.MAX_SAFE_INTEGER : -1, s: '', k: '' });
  const f = fitItems<RecordView>(
    {
      items: answer.records,
      full: (r) => r,
      summary: withoutBody,
      label: recordLabel,
      matches: (r, q, position) => {
        const range = rangeOf(q);
        return range ? position >= range.from && position <= range.to : r.key === q || `${r.scope}/${r.key}` === q;
      },
      name: 'the list',
      unit: 'record',
      more: () => 'continue with the cursor in next',
      queries: 'a key, <scope>/<key>, or positions in the page such as 1-20',
    },
    ask,
  );
  const last = f.shown[f.shown.length - 1];
  const cut = f.more;
  const next = !cut ? answer.next : last ? cursorAfter(last) : (request.cursor ?? fromTheStart(order));
  return {
    records: f.rendered,
    ...(f.outline !== null ? { outline: f.outline } : {}),
    withheld: answer.withheld,
    // Only when another page follows, as an unfitted list answers.
    ...(next === undefined ? {} : { next }),
    more: cut || answer.more,
    fit: f.fit,
  };
};

interface Line {
  readonly text: string;
  readonly value: Record<string, unknown>;
  readonly position: number;
}

const linesOf = (texts: readonly string[]): Line[] => texts.map((text, i) => ({ text, value: JSON.parse(text) as Record<string, unknown>, position: i + 1 }));

const pick = (value: Record<string, unknown>, keys: readonly string[]) =>
  Object.fromEntries(keys.filter((k) => value[k] !== undefined).map((k) => [k, value[k]]));

/** The JSON Lines of a fitted answer: the lines shown (verbatim in full and section views), then `{"fit": …}`. */
const jsonLinesOf = (
  f: { view: View; shown: readonly Line[]; rendered: readonly unknown[]; outline: string | null },
  tail: readonly string[],
  fit: unknown,
) => {
  const body =
    f.outline !== null
      ? [JSON.stringify({ outline: f.outline })]
      : f.view === 'summary'
        ? f.rendered.map((r) => JSON.stringify(r))
        : f.shown.map((l) => l.text);
  return [...body, ...tail, JSON.stringify({ fit })].map((l) => `${l}\n`).join('');
};

/**
 * An audit page, fitted. Full and section views keep each entry's line exactly as it was hashed
 * (so it still verifies); a summary line is `{seq, at, kind, job}`. A query is a kind, a job id,
 * or a range of `seq` (`120-180`).
 */
export const fitAuditLines = (texts: readonly string[], ask: ItemsAsk): string => {
  const items = linesOf(texts);
  const lastSeq = items.length > 0 ? Number(items[items.length - 1]!.value['seq']) : 0;
  const f = fitItems<Line>(
    {
      items,
      full: (l) => l.value,
      summary: (l) => pick(l.value, ['seq', 'at', 'kind', 'job']),
      label: (l) => `#${String(l.value['seq'])} ${String(l.value['kind'])} at ${String(l.value['at'])}`,
      matches: (l, q) => {
        const range = rangeOf(q);
        const seq = Number(l.value['seq']);
        return range ? seq >= range.from && seq <= range.to : l.value['kind'] === q || l.value['job'] === q;
      },
      name: 'the audit page',
      unit: 'entry',
      more: (next) => `read on with query=${String(next.value['seq'])}-${lastSeq}`,
      queries: 'a kind, a job id, or entries by seq such as 120-180',
    },
    ask,
  );
  return jsonLinesOf(f, [], f.fit);
};

/**
 * An export, fitted: its record lines verbatim (full, section) or without bodies (summary), then
 * the manifest of the whole export unchanged (it names what the complete export holds), then the
 * fit line. A query is a key, `<plugin>/<scope>/<key>`, or line positions (`1-50`).
 */
export const fitExportText = (text: string, ask: ItemsAsk): string => {
  const all = text.split('\n').filter((l) => l !== '');
  const manifest = all.pop()!;
  const items = linesOf(all);
  const f = fitItems<Line>(
    {
      items,
      full: (l) => l.value,
      summary: (l) => {
        const { body, ...meta } = l.value;
        return { ...meta, body_keys: typeof body === 'object' && body !== null && !Array.isArray(body) ? Object.keys(body) : [] };
      },
      label: (l) => `${String(l.value['plugin'])}/${String(l.value['scope'])}/${String(l.value['key'])} v${String(l.value['version'])}`,
      matches: (l, q, position) => {
        const range = rangeOf(q);
        if (range) return position >= range.from && position <= range.to;
        return l.value['key'] === q || `${String(l.value['plugin'])}/${String(l.value['scope'])}/${String(l.value['key'])}` === q;
      },
      name: 'the export',
      unit: 'line',
      more: (next) => `read on with query=${next.position}-${items.length}`,
      queries: 'a key, <plugin>/<scope>/<key>, or lines such as 1-50',
    },
    ask,
  );
  return jsonLinesOf(f, [manifest], f.fit);
};

/** A records answer fitted for the op that made it (history or list); refusals pass unchanged. */
export const fitRecordsAnswer = (
  request: { op: string; list?: { order?: ListOrder | undefined; cursor?: string | undefined } | undefined },
  outcome: E.Either<Refusal, object>,
  ask: ItemsAsk,
): E.Either<Refusal, object> => {
  if (E.isLeft(outcome)) return outcome;
  if (request.op === 'history') return E.right(fitHistory(outcome.right as { records: RecordView[] }, ask));
  if (request.op === 'list') return E.right(fitList(outcome.right as Parameters<typeof fitList>[0], ask, request.list ?? {}));
  return outcome;
};
