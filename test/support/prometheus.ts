/** One sample of the Prometheus text format: `name{a="b"} value`. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** The samples of a scrape (comments skipped); throws on a line it cannot read. */
export const parsePrometheus = (text: string): Sample[] =>
  text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const m = LINE.exec(line);
      if (!m) throw new Error(`not a Prometheus sample: ${line}`);
      const labels = Object.fromEntries([...(m[2] ?? '').matchAll(LABEL)].map((l) => [l[1]!, l[2]!]));
      return { name: m[1]!, labels, value: Number(m[3]) };
    });

/** The one sample of `name` whose labels include `labels`; throws when none or several match. */
export const sample = (samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number => {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length !== 1) throw new Error(`${found.length} samples of ${name}${JSON.stringify(labels)}`);
  return found[0]!.value;
};
