import { weigh } from '../../clients/typescript/src/fit/weigh.ts';
import { fitDocument } from '../../clients/typescript/src/fit/document.ts';
import { fitJson, jsonLines } from '../../clients/typescript/src/fit/json.ts';
import { linesOf } from '../../clients/typescript/src/fit/shape.ts';
import type { FitOptions, Fitted } from '../../clients/typescript/src/fit/types.ts';
import { depthExceeds, MAX_DEPTH } from '../shared/json-depth.ts';

export { DEFAULT_OFFLOAD_TOKENS } from './threshold.ts';
/** Content over this as UTF-8 JSON is refused: the node keeps a result as one payload of at most 32 MiB. */
export const MAX_RESULT_BYTES = 31 << 20;
/** The outline of an offloaded result never takes more than this. */
export const MAX_OUTLINE_TOKENS = 1_000;

export type ResultKind = 'json' | 'markdown' | 'text';

/** A result as it is stored and read back: its bytes' text, and its kind with the value a kind reads. */
export interface ResultForm {
  readonly kind: ResultKind;
  /** What is stored and weighed: a string as given, any other JSON compact. */
  readonly text: string;
  readonly value: unknown;
}

const HEADING = /^#{1,6} \S/m;

const kindOfText = (text: string): ResultKind => (HEADING.test(text) ? 'markdown' : 'text');

/** A tool's content: a JSON object or array is read as JSON, a string with headings as Markdown, anything else as text. */
export const resultForm = (content: unknown): ResultForm => {
  if (typeof content === 'string') return { kind: kindOfText(content), text: content, value: content };
  const text = JSON.stringify(content) ?? 'null';
  return content !== null && typeof content === 'object' ? { kind: 'json', text, value: content } : { kind: 'text', text, value: text };
};

/**
 * The form of a stored result, from its bytes alone (the file is content-addressed, so nothing
 * else is kept): text that parses as a JSON object or array is JSON. A string result whose text
 * is itself a JSON object or array is read as JSON too, which is what it says it is.
 */
export const storedForm = (text: string): ResultForm => {
  const first = text.trimStart()[0];
  // JSON deeper than any body the edge takes is read as text: reading it as JSON walks it recursively.
  if ((first === '{' || first === '[') && !depthExceeds(text, MAX_DEPTH)) {
    try {
      const value: unknown = JSON.parse(text);
      if (value !== null && typeof value === 'object') return { kind: 'json', text, value };
    } catch {
      // not JSON: read as text
    }
  }
  return { kind: kindOfText(text), text, value: text };
};

/** Lines in the form a kind is read by: one indented line per value for JSON. */
export const linesIn = (f: ResultForm): number => linesOf(f.kind === 'json' ? jsonLines(f.value) : f.text).length;

export const fitResult = (f: ResultForm, options: FitOptions): Fitted =>
  f.kind === 'json' ? fitJson(f.value, options) : fitDocument(f.text, { ...options, name: options.name ?? 'the result' });

export interface OffloadStub {
  readonly offloaded: { readonly ref: string; readonly kind: ResultKind; readonly size: number; readonly tokens: number; readonly lines: number };
  readonly outline: string;
  readonly note: string;
}

/** Whether a result is read inline: its text weighs no more than the threshold. */
export const readInline = (f: ResultForm, threshold: number | 'off'): boolean => threshold === 'off' || weigh(f.text) <= threshold;

/**
 * The stub the model reads instead (SPEC §13): the summary view, or the stub view when the
 * summary does not fit a quarter of the threshold, at most 1,000 tokens; made without a model,
 * from the content alone, so the same content always gives the same stub.
 */
export const offloadStub = (f: ResultForm, tool: string, ref: string, size: number, threshold: number): OffloadStub => {
  const tokens = weigh(f.text);
  const lines = linesIn(f);
  const budget = Math.min(MAX_OUTLINE_TOKENS, Math.floor(threshold / 4));
  const summary = fitResult(f, { view: 'summary', budget });
  const outline = summary.fit?.view === 'summary' ? summary.text : fitResult(f, { view: 'stub', budget: MAX_OUTLINE_TOKENS }).text;
  return {
    offloaded: { ref, kind: f.kind, size, tokens, lines },
    outline,
    note:
      `The result of ${tool} (${tokens} tokens, ${lines} lines) is more than the ${threshold} tokens this agent reads inline, ` +
      `so it was kept as a file of this job and left out here; read parts with POST /v1/results/read ` +
      `{"ref": "${ref}", "section" or "range" (lines such as 120-180) or "query", "budget"}.`,
  };
};
