import { AsyncLocalStorage } from 'node:async_hooks';
import type { AppendRow, AppendRows } from '../../domain/ports/append-rows.ts';

export { AppendRowTaken, type AppendRow } from '../../domain/ports/append-rows.ts';

/** The rows made by the work running inside `run`, waiting for its next append. */
export const appendRowsContext = new AsyncLocalStorage<AppendRow[]>();

const endings = new WeakMap<AppendRow[], (() => void)[]>();

/** Runs `then` when the work that made `rows` has ended, however it ended. */
export const whenWorkEnds = (rows: AppendRow[], then: () => void) => {
  const list = endings.get(rows);
  if (list) list.push(then);
  else endings.set(rows, [then]);
};

export const appendRows: AppendRows = {
  async run(work) {
    const rows: AppendRow[] = [];
    try {
      return await appendRowsContext.run(rows, work);
    } finally {
      for (const then of endings.get(rows) ?? []) then();
    }
  },
};
