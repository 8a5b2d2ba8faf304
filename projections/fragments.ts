/**
 * One data-modifying statement with no WITH of its own, naming its parameters `$1` … `$n`
 * (`params`, in order) and no other `$`. Fragments of models that own disjoint tables can be
 * sent as one statement (`fused`), each a data-modifying CTE: one round trip instead of one each.
 */
export interface Fragment {
  readonly text: string;
  readonly params: readonly unknown[];
  /**
   * CTEs the text reads (`name AS (…)`, in order, with the same `$n`), named after the model's
   * own tables so no two fragments' names meet.
   */
  readonly ctes?: readonly string[];
}

/** The fragments as one statement, each its own CTE, their parameters numbered on. */
export const fused = (fragments: readonly Fragment[]): { text: string; params: unknown[] } => {
  let offset = 0;
  const ctes = fragments.flatMap((f, i) => {
    const at = offset;
    const numbered = (text: string) =>
      text.replace(/\$(\d+)/g, (_, n: string) => {
        if (Number(n) > f.params.length) throw new Error(`a fragment names $${n} beyond its ${f.params.length} parameters`);
        return `$${Number(n) + at}`;
      });
    offset += f.params.length;
    return [...(f.ctes ?? []).map(numbered), `f${i} AS (${numbered(f.text)})`];
  });
  return { text: `WITH ${ctes.join(',\n  ')}\nSELECT 1`, params: fragments.flatMap((f) => f.params) };
};
