/** One part of a whole: a heading's section, a definition, a run of lines, a file, a hunk, a key. */
export interface Part {
  /** What the outline calls it: a heading, a name, a path, a key, "lines 1-40". */
  readonly title: string;
  /** Its line in the stub's outline (indented by depth). */
  readonly outline: string;
  /** Its line in the summary: the outline line with the part's first sentence. */
  readonly summary: string;
  /** The lines it covers in the full view, as [start, end) 0-based spans. */
  readonly spans: ReadonlyArray<readonly [number, number]>;
  /** The names a query may give it, compared without case. */
  readonly names: readonly string[];
  /** Only a query names it; it has no line in the outline or summary (a diff's hunks). */
  readonly hidden?: boolean;
}

/** A whole cut into parts: what every view is made from. */
export interface Shape {
  /** "Markdown", "TypeScript or JavaScript", "text", "diff", "JSON object". */
  readonly kind: string;
  /** The full view's text and its lines. */
  readonly full: string;
  readonly lines: readonly string[];
  readonly parts: readonly Part[];
  /** Extra words for the stub's first line: "3 files, +40 −12 lines". */
  readonly facts: string;
  /** How a query names a part here: "a heading or a line range such as 120-180". */
  readonly queries: string;
}

/** The lines of a text; a final line break ends the last line rather than starting another. */
export const linesOf = (text: string): string[] => {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
};

/** "lines 3-7", "line 3" (1-based, as a reader counts them). */
export const lineSpan = (start: number, end: number): string => (end - start <= 1 ? `line ${start + 1}` : `lines ${start + 1}-${end}`);
