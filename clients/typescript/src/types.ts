import type { FitNote, View } from './fit/types.ts';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type JsonObject = { [k: string]: Json };

export interface CollectionSpec {
  readonly people?: readonly string[];
  readonly fields?: readonly string[];
}

export interface RecordEntry<T = Record<string, unknown>> {
  readonly id: string;
  readonly value: T;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** Where a page of a query ends: the last entry's `createdAt` and `id`. */
export type After = Pick<RecordEntry, 'createdAt' | 'id'>;

export interface Page {
  readonly limit?: number;
  readonly after?: After;
}

/** A fitted query's ask: the view, the budget in tokens and, for `section`, the keys to show. */
export interface FitAsk {
  readonly view?: View;
  readonly budget?: number;
  readonly query?: string;
}

/** A fitted query's answer: whole records as many as fit (a stub has no value), the fit note, and where to read on. */
export interface FittedQuery {
  readonly entries: (Omit<RecordEntry, 'value'> & { readonly value?: Record<string, unknown> })[];
  readonly fit: FitNote;
  readonly more: boolean;
  readonly next: After | null;
}

export interface ExportedRecord extends RecordEntry {
  readonly collection: string;
}

/**
 * The agent records API of one agent, call by call, with no declaration of its own: what
 * `createRecords` drives, over HTTP (`recordsClient`) or another store. Refusals throw `RecordsError`.
 */
export interface RecordsTransport {
  declare(collections: readonly { name: string; people: string[]; fields: string[] }[]): Promise<void>;
  collections(): Promise<string[]>;
  put(collection: string, id: string, value: unknown, startedMs: number | null): Promise<Omit<RecordEntry, 'value'>>;
  get(collection: string, id: string): Promise<JsonObject | null>;
  query(collection: string, where: Record<string, unknown>, page: Page): Promise<RecordEntry<JsonObject>[]>;
  /** A query answered fitted: `{entries, fit, more, next}`. */
  queryFitted(collection: string, where: Record<string, unknown>, page: Page, ask: FitAsk): Promise<FittedQuery>;
  delete(collection: string, id: string): Promise<boolean>;
  forget(person: string, also: readonly string[]): Promise<number>;
  export(): Promise<ExportedRecord[]>;
}
