import { declarationRefusal } from './declaration.ts';
import { refuse } from './errors.ts';
import { recordsClient } from './http.ts';
import { plainValue } from './plain-value.ts';
import type { After, CollectionSpec, ExportedRecord, RecordEntry, RecordsTransport } from './types.ts';

export interface Records {
  put(collection: string, id: string, value: object, options?: { startedMs?: number }): Promise<void>;
  get<T = Record<string, unknown>>(collection: string, id: string): Promise<T | null>;
  query<T = Record<string, unknown>>(
    collection: string,
    where?: Record<string, string | number | boolean | null>,
    page?: { limit?: number; after?: After },
  ): Promise<RecordEntry<T>[]>;
  delete(collection: string, id: string): Promise<boolean>;
  /** Deletes every record naming `person` (or a name in `also`) in a people field; resolves to how many. */
  forgetPerson(person: string, also?: readonly string[]): Promise<number>;
  /** The declared collections' names, in the order declared (a property, not a call). */
  readonly collections: readonly string[];
  export(): AsyncIterable<ExportedRecord>;
}

export type RecordsOptions =
  | { readonly url: string; readonly key: string; readonly collections: Readonly<Record<string, CollectionSpec>> }
  /** Another way to the same API (the service's own package adds an in-process store so). */
  | { readonly transport: RecordsTransport; readonly collections: Readonly<Record<string, CollectionSpec>> };

const declarationOf = (collections: Readonly<Record<string, CollectionSpec>>) =>
  Object.entries(collections).map(([name, c]) => ({ name, people: [...(c.people ?? [])], fields: [...(c.fields ?? [])] }));

/**
 * The records of one agent. The declaration is checked here (a limit broken throws now) and
 * sent before the first call resolves; every refusal is a `RecordsError` whose message starts
 * with `records:` and says what to change.
 */
export const createRecords = (options: RecordsOptions): Records => {
  const declaration = declarationOf(options.collections);
  const refused = declarationRefusal(new Map(), declaration);
  if (refused) refuse(refused.error, refused.message);
  const transport: RecordsTransport =
    'transport' in options
      ? options.transport
      : 'url' in options
        ? recordsClient(options.url, options.key)
        : refuse(
            'invalid',
            "records: this package talks to a Custodian service: give { url, key, collections } (the in-memory store comes with the service's own package, as custodian/sdk)",
          );
  let declared: Promise<void> | undefined;
  const ready = () => (declared ??= transport.declare(declaration));
  const after = async <T>(f: () => Promise<T>) => {
    await ready();
    return f();
  };
  return {
    collections: declaration.map((c) => c.name),
    put: (collection, id, value, opts) =>
      after(async () => {
        const plain = plainValue(value);
        if (typeof plain !== 'object' || plain === null || Array.isArray(plain))
          refuse('invalid', 'records: value is not a JSON object: put a plain object', { field: 'value' });
        await transport.put(collection, id, plain, opts?.startedMs ?? null);
      }),
    get: <T>(collection: string, id: string) => after(() => transport.get(collection, id) as Promise<T | null>),
    query: <T>(collection: string, where: Record<string, unknown> = {}, page: { limit?: number; after?: After } = {}) =>
      after(
        () =>
          transport.query(collection, plainValue(where) as Record<string, unknown>, {
            ...(page.limit === undefined ? {} : { limit: page.limit }),
            ...(page.after ? { after: { createdAt: page.after.createdAt, id: page.after.id } } : {}),
          }) as Promise<RecordEntry<T>[]>,
      ),
    delete: (collection, id) => after(() => transport.delete(collection, id)),
    forgetPerson: (person, also = []) => after(() => transport.forget(person, also)),
    export: () => ({
      async *[Symbol.asyncIterator]() {
        await ready();
        for (const r of await transport.export()) yield r;
      },
    }),
  };
};
