import { AsyncLocalStorage } from 'node:async_hooks';
import type { AppendRow, AppendRows } from '../../domain/ports/append-rows.ts';

export { AppendRowTaken, type AppendRow } from '../../domain/ports/append-rows.ts';

/** The rows made by the work running inside `run`, waiting for its next append. */
export const appendRowsContext = new AsyncLocalStorage<AppendRow[]>();

export const appendRows: AppendRows = { run: (work) => appendRowsContext.run([], work) };
