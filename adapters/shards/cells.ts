import type { Cell } from '../cell.ts';

/** The tenant databases' cells by name, in name order; the first also answers what no tenant owns (docs, the audit key). */
export interface Cells {
  readonly byName: ReadonlyMap<string, Cell>;
  readonly names: readonly string[];
  readonly first: Cell;
}

export const cellsOf = (byName: ReadonlyMap<string, Cell>): Cells => {
  const names = [...byName.keys()].sort();
  return { byName, names, first: byName.get(names[0]!)! };
};
