// `custodian/sdk`: the SDK package (clients/typescript, `@custodian/sdk`) as the service's own
// package exports it, plus what only the service can give: a store in this process
// (`{ store: 'memory' }`) that runs the service's own decider over the memory event store, for
// unit tests of tools. Everything else is the package's, imported from it.
import * as E from 'fp-ts/lib/Either.js';
import { memoryEventStore } from '../adapters/eventstore/memory.ts';
import { STATUS } from '../adapters/http/status.ts';
import { memoryKeystore } from '../adapters/keys/memory-keystore.ts';
import { collectionsService } from '../commands/collections.ts';
import type { Refusal } from '../domain/shared/refusal.ts';
import { addressedMessage } from '../domain/collections/refusals.ts';
import { RecordsError } from '../clients/typescript/src/errors.ts';
import { createRecords as createPackageRecords, type Records } from '../clients/typescript/src/records.ts';
import type { CollectionSpec, ExportedRecord, FittedQuery, RecordsTransport } from '../clients/typescript/src/types.ts';

export * from '../clients/typescript/src/index.ts';

export type RecordsOptions =
  | Parameters<typeof createPackageRecords>[0]
  | { readonly store: 'memory' | MemoryRecordsStore; readonly collections: Readonly<Record<string, CollectionSpec>> };

/**
 * A memory store several `createRecords` share, as a restarted agent shares its database (to
 * test a changed declaration). `store: 'memory'` gives each call a fresh one.
 */
export interface MemoryRecordsStore {
  readonly kind: 'memory-records-store';
}

/** A refusal of the decider as the HTTP API would answer it: the same status, code, fields and message. */
const errorOf = (r: Refusal) => {
  const { error, message, ...fields } = r;
  // Addressed to this SDK's callers, as the service addresses a TypeScript client's refusals.
  const text = typeof message === 'string' ? message : (addressedMessage(r, 'typescript') ?? `records: ${error}: check the request`);
  return new RecordsError(STATUS[error], error, fields, text);
};

const memoryTransport = (): RecordsTransport => {
  const service = collectionsService({ store: memoryEventStore(), keys: memoryKeystore(), now: Date.now });
  const [t, a] = ['memory', 'agent'];
  const ok = async <T>(p: Promise<E.Either<Refusal, T>>): Promise<T> => {
    const r = await p;
    if (E.isLeft(r)) throw errorOf(r.left);
    return r.right;
  };
  return {
    declare: (d) => ok(service.declare(t, a, d)).then(() => undefined),
    collections: () => service.collections(t, a),
    put: (c, id, value, started) => ok(service.put(t, a, c, id, value, started)),
    get: (c, id) => ok(service.get(t, a, c, id)).then((e) => e?.value ?? null),
    query: (c, where, page) => ok(service.query(t, a, c, where as never, page)),
    queryFitted: (c, where, page, ask) => ok(service.queryFitted(t, a, c, where as never, page, ask)) as Promise<FittedQuery>,
    delete: (c, id) => ok(service.delete(t, a, c, id)).then((r) => r.deleted),
    forget: (person, also) => ok(service.forget(t, a, person, also)).then((r) => r.deleted),
    export: () => service.export(t, a) as Promise<ExportedRecord[]>,
  };
};

const sharedStores = new WeakMap<MemoryRecordsStore, RecordsTransport>();
export const memoryRecordsStore = (): MemoryRecordsStore => {
  const store: MemoryRecordsStore = Object.freeze({ kind: 'memory-records-store' });
  sharedStores.set(store, memoryTransport());
  return store;
};

/**
 * The records of one agent, from a service (`{ url, key }`) or a store in this process
 * (`{ store: 'memory' }`). The declaration is checked here (a limit broken throws now); every
 * refusal is a `RecordsError` whose message starts with `records:` and says what to change.
 */
export const createRecords = (options: RecordsOptions): Records => {
  if (!('store' in options)) return createPackageRecords(options);
  const transport =
    options.store === 'memory'
      ? memoryTransport()
      : (sharedStores.get(options.store) ??
        ((): never => {
          throw new RecordsError(0, 'invalid', { field: 'store' }, 'records: unknown memory store: make it with memoryRecordsStore()');
        })());
  return createPackageRecords({ transport, collections: options.collections });
};
