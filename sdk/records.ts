// `custodian/sdk`: agent records for agent runtimes and tool authors. The same calls
// reach a Custodian service (`{ url, key }`) or a store in this process (`{ store: 'memory' }`),
// which runs the service's own decider over the memory event store, for unit tests of tools.
import http from 'node:http';
import https from 'node:https';
import * as E from 'fp-ts/lib/Either.js';
import { memoryEventStore } from '../adapters/eventstore/memory.ts';
import { memoryKeystore } from '../adapters/keys/memory-keystore.ts';
import { collectionsService, type Entry } from '../commands/collections.ts';
import type { JsonObject } from '../domain/collections/values.ts';
import { checkDeclaration } from '../domain/collections/decide.ts';
import { RECORD_LIMITS } from '../domain/collections/limits.ts';
import { initialAgentState } from '../domain/collections/state.ts';
import type { Refusal } from '../domain/shared/refusal.ts';
import { addressedMessage } from '../domain/collections/refusals.ts';
import { SURFACE_HEADER, type Surface } from '../domain/shared/surface.ts';
import type { FitAsk } from '../domain/collections/fit.ts';
import type { FitNote } from '../domain/fit/types.ts';

export { RECORD_LIMITS };

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

/** A fitted query's answer: whole records as many as fit (a stub has no value), the fit note, and where to read on. */
export interface FittedQuery {
  readonly entries: (Omit<RecordEntry, 'value'> & { readonly value?: Record<string, unknown> })[];
  readonly fit: FitNote;
  readonly more: boolean;
  readonly next: Pick<RecordEntry, 'createdAt' | 'id'> | null;
}

export interface ExportedRecord extends RecordEntry {
  readonly collection: string;
}

export interface Records {
  put(collection: string, id: string, value: object, options?: { startedMs?: number }): Promise<void>;
  get<T = Record<string, unknown>>(collection: string, id: string): Promise<T | null>;
  query<T = Record<string, unknown>>(
    collection: string,
    where?: Record<string, string | number | boolean | null>,
    page?: { limit?: number; after?: Pick<RecordEntry, 'createdAt' | 'id'> },
  ): Promise<RecordEntry<T>[]>;
  delete(collection: string, id: string): Promise<boolean>;
  /** Deletes every record naming `person` (or a name in `also`) in a people field; resolves to how many. */
  forgetPerson(person: string, also?: readonly string[]): Promise<number>;
  /** The declared collections' names, in the order declared. */
  readonly collections: readonly string[];
  export(): AsyncIterable<ExportedRecord>;
}

export type RecordsOptions =
  | { readonly url: string; readonly key: string; readonly collections: Readonly<Record<string, CollectionSpec>> }
  | { readonly store: 'memory' | MemoryRecordsStore; readonly collections: Readonly<Record<string, CollectionSpec>> };

/**
 * A memory store several `createRecords` share, as a restarted agent shares its database (to
 * test a changed declaration). `store: 'memory'` gives each call a fresh one.
 */
export interface MemoryRecordsStore {
  readonly kind: 'memory-records-store';
}

const fail = (message: string): never => {
  throw new Error(message);
};

/** Keys the service refuses anywhere in a value (JSON keeps them; objects built by assignment do not). */
const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

const pathOf = (path: string, key: string) => (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`);

/**
 * The value as JSON will carry it, or an error naming the first path JSON would change:
 * a Date, NaN, Infinity, a Map or Set, a class instance, a function, `undefined` inside a list.
 * Keys whose value is `undefined` are dropped, as JSON.stringify drops them.
 */
export const plainValue = (v: unknown, path = 'value'): unknown => {
  const refuse = (what: string, change: string) => fail(`records: ${path} is ${what}: ${change}`);
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      return Number.isFinite(v) ? v : refuse(String(v), 'keep only finite numbers');
    case 'undefined':
      return refuse('undefined', 'leave the item out of the list, or use null');
    case 'function':
      return refuse('a function', 'keep only JSON data');
    case 'bigint':
    case 'symbol':
      return refuse(`a ${typeof v}`, 'keep only JSON data (a bigint as text)');
  }
  if (v === null) return null;
  if (v instanceof Date) return refuse('a Date', 'keep a time as milliseconds (Date.now()) or ISO text');
  if (v instanceof Map || v instanceof Set) return refuse(`a ${v instanceof Map ? 'Map' : 'Set'}`, 'keep a plain object or a list');
  if (Array.isArray(v)) return v.map((item, i) => plainValue(item, `${path}[${i}]`));
  const proto = Object.getPrototypeOf(v) as unknown;
  // `{ __proto__: {...} }` written as a literal: the key became a prototype of plain data.
  if (proto !== Object.prototype && proto !== null && !Object.hasOwn(proto as object, 'constructor'))
    return fail(`records: ${pathOf(path, '__proto__')} is a reserved key: rename it`);
  if (proto !== Object.prototype && proto !== null) return refuse(`an instance of ${(v as object).constructor?.name ?? 'a class'}`, 'keep a plain object');
  const out: Record<string, unknown> = {};
  for (const [k, item] of Object.entries(v as Record<string, unknown>)) {
    // As the service refuses them: assigned, `__proto__` would set a prototype and vanish from the JSON.
    if (RESERVED_KEYS.has(k)) return fail(`records: ${pathOf(path, k)} is a reserved key: rename it`);
    if (item !== undefined) out[k] = plainValue(item, pathOf(path, k));
  }
  return out;
};

const declarationOf = (collections: Readonly<Record<string, CollectionSpec>>) =>
  Object.entries(collections).map(([name, c]) => ({ name, people: [...(c.people ?? [])], fields: [...(c.fields ?? [])] }));

/** A refusal of the store in this process, addressed to this SDK's callers. */
const messageOf = (r: Refusal) => (typeof r.message === 'string' ? r.message : (addressedMessage(r, 'typescript') ?? `records: ${r.error}: check the request`));

const memoryTransport = () => {
  const service = collectionsService({ store: memoryEventStore(), keys: memoryKeystore(), now: Date.now });
  const [t, a] = ['memory', 'agent'];
  const ok = async <T>(p: Promise<E.Either<Refusal, T>>): Promise<T> => {
    const r = await p;
    return E.isLeft(r) ? fail(messageOf(r.left)) : r.right;
  };
  return {
    declare: (d: ReturnType<typeof declarationOf>) => ok(service.declare(t, a, d)).then(() => undefined),
    collections: () => service.collections(t, a),
    put: (c: string, id: string, value: unknown, started: number | null): Promise<Omit<RecordEntry, 'value'>> => ok(service.put(t, a, c, id, value, started)),
    get: (c: string, id: string) => ok(service.get(t, a, c, id)).then((e) => e?.value ?? null),
    query: (c: string, where: Record<string, unknown>, page: { limit?: number; after?: { createdAt: number; id: string } }) =>
      ok(service.query(t, a, c, where as never, page)),
    /** A query answered fitted: `{entries, fit, more, next}`. */
    queryFitted: (c: string, where: Record<string, unknown>, page: { limit?: number; after?: { createdAt: number; id: string } }, ask: FitAsk) =>
      ok(service.queryFitted(t, a, c, where as never, page, ask)) as Promise<FittedQuery>,
    delete: (c: string, id: string) => ok(service.delete(t, a, c, id)).then((r) => r.deleted),
    forget: (person: string, also: readonly string[]) => ok(service.forget(t, a, person, also)).then((r) => r.deleted),
    export: () => service.export(t, a),
  };
};

type Transport = ReturnType<typeof memoryTransport>;

const sharedStores = new WeakMap<MemoryRecordsStore, Transport>();
export const memoryRecordsStore = (): MemoryRecordsStore => {
  const store: MemoryRecordsStore = Object.freeze({ kind: 'memory-records-store' });
  sharedStores.set(store, memoryTransport());
  return store;
};

/**
 * The agent records API of a service, call by call, with no declaration of its own: for a
 * program that serves another's calls (`custodian mcp`). Refusals throw as `createRecords` does.
 */
export const recordsClient = (url: string, key: string, surface: Surface = 'typescript'): Transport => httpTransport(url, key, surface);

/** An id or collection as one path segment: percent-encoded, dots too, so `.` and `..` are names, never path steps. */
const segment = (s: string) => encodeURIComponent(s).replace(/\./g, '%2E');

interface Answer {
  readonly status: number;
  readonly type: string;
  readonly text: string;
}

/**
 * One request, its path sent exactly as written: `fetch` (WHATWG URL) would resolve `.`, `..`,
 * `%2E` and `%2E%2E` segments into another route, so records named so are reached with
 * node's own client instead.
 */
const request = (base: URL, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const client = base.protocol === 'https:' ? https : http;
    const req = client.request(
      {
        method,
        hostname: base.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: base.port === '' ? undefined : Number(base.port),
        path: `${base.pathname.replace(/\/+$/, '')}${path}`,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });

/** `surface` names the caller to the service, so a refusal says what to call in this SDK (or MCP tool). */
const httpTransport = (url: string, key: string, surface: Surface): Transport => {
  const base = url.replace(/\/+$/, '');
  let parsed: URL | null = null;
  try {
    parsed = new URL(base);
  } catch {
    parsed = null;
  }
  const wrong = (status: number) =>
    fail(
      `records: the service at ${base} answered ${status} without an answer of the agent records API: check the url (the service's address, e.g. http://127.0.0.1:8080) and the agent key`,
    );
  /**
   * One call. Every answer that is not a success is an Error with the service's message; only
   * `get` reads a 404 as "absent", and only the record route's own (`what: "record"`), never a
   * route the service does not have, nor another server's 404.
   */
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    absent = false,
  ): Promise<{ status: number; type: string; json: Record<string, unknown>; text: string }> => {
    if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:'))
      return fail(`records: ${JSON.stringify(url)} is not an http(s) url: give the service's address, e.g. http://127.0.0.1:8080`);
    let res: Answer;
    try {
      res = await request(
        parsed,
        method,
        path,
        {
          authorization: `Bearer ${key}`,
          accept: 'application/json, application/x-ndjson',
          [SURFACE_HEADER]: surface,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body === undefined ? undefined : JSON.stringify(body),
      );
    } catch (error) {
      return fail(`records: the service at ${base} could not be reached (${(error as Error).message}): start it, or give the right url`);
    }
    let json: Record<string, unknown> = {};
    try {
      if (res.type.includes('application/json')) {
        const v = JSON.parse(res.text) as unknown;
        if (v !== null && typeof v === 'object' && !Array.isArray(v)) json = v as Record<string, unknown>;
      }
    } catch {
      // A body that is not JSON is reported by status below.
    }
    if (absent && res.status === 404 && json.error === 'not_found' && json.what === 'record') return { status: 404, type: res.type, json, text: res.text };
    if (res.status >= 400) {
      // A route the service does not have: the url points somewhere else (said before the service's own message).
      if (json.error === 'not_found' && json.what === 'route')
        fail(`records: the service at ${base} has no route ${method} ${String(json.path)}: check the url (the service's address, e.g. http://127.0.0.1:8080)`);
      if (typeof json.message === 'string') fail(json.message);
      if (typeof json.error !== 'string') wrong(res.status);
      fail(
        `records: the service answered ${res.status} ${String(json.error)}${typeof json.field === 'string' ? ` (${json.field}: ${String(json.reason)})` : ''}: check the request, the url and the agent key`,
      );
    }
    if (res.status < 200 || res.status >= 300) wrong(res.status);
    return { status: res.status, type: res.type, json, text: res.text };
  };
  /** A success must be the API's answer: anything else (another server, a wrong path) is an error, never "done". */
  const shaped = <T>(
    r: { status: number; json: Record<string, unknown> },
    ok: (j: Record<string, unknown>) => boolean,
    pick: (j: Record<string, unknown>) => T,
  ): T => (ok(r.json) ? pick(r.json) : wrong(r.status));
  const rec = (c: string, id: string) => `/v1/agent/records/${segment(c)}/${segment(id)}`;
  const isEntries = (j: Record<string, unknown>) => Array.isArray(j.entries);
  return {
    declare: async (d) => {
      const r = await call('PUT', '/v1/agent/collections', { collections: Object.fromEntries(d.map((c) => [c.name, { people: c.people, fields: c.fields }])) });
      shaped(
        r,
        (j) => Array.isArray(j.collections),
        () => undefined,
      );
    },
    collections: async () =>
      shaped(
        await call('GET', '/v1/agent/collections'),
        (j) => Array.isArray(j.collections),
        (j) => j.collections as string[],
      ),
    put: async (c, id, value, started) =>
      shaped(
        await call('PUT', rec(c, id), { value, ...(started === null ? {} : { started_ms: started }) }),
        (j) => j.id === id && typeof j.createdAt === 'number' && typeof j.updatedAt === 'number',
        (j) => j as never,
      ),
    get: async (c, id) => {
      const r = await call('GET', rec(c, id), undefined, true);
      if (r.status === 404) return null;
      return shaped(
        r,
        (j) => j.value !== null && typeof j.value === 'object',
        (j) => j.value as JsonObject,
      );
    },
    query: async (c, where, page) =>
      shaped(await call('POST', `/v1/agent/records/${segment(c)}/query`, { where, ...page }), isEntries, (j) => j.entries as never),
    queryFitted: async (c, where, page, ask) =>
      shaped(
        await call('POST', `/v1/agent/records/${segment(c)}/query`, { where, ...page, ...ask }),
        (j) => isEntries(j) && typeof j.fit === 'object',
        (j) => j as never,
      ),
    delete: async (c, id) =>
      shaped(
        await call('DELETE', rec(c, id)),
        (j) => typeof j.deleted === 'boolean',
        (j) => j.deleted as boolean,
      ),
    forget: async (person, also) =>
      shaped(
        await call('POST', '/v1/agent/forget', { person, also }),
        (j) => typeof j.deleted === 'number',
        (j) => j.deleted as number,
      ),
    export: async () => {
      const r = await call('GET', '/v1/agent/export');
      if (!r.type.includes('ndjson')) return wrong(r.status);
      const lines = r.text.split('\n').filter((l) => l.trim() !== '');
      const records: (Entry & { collection: string })[] = [];
      for (const l of lines) {
        let line: unknown;
        try {
          line = JSON.parse(l);
        } catch {
          return wrong(r.status);
        }
        const e = line as Partial<Entry & { collection: string }>;
        if (typeof e !== 'object' || e === null || typeof e.collection !== 'string' || typeof e.id !== 'string') return wrong(r.status);
        records.push(e as Entry & { collection: string });
      }
      return records;
    },
  };
};

/**
 * The records of one agent. The declaration is checked here (a limit broken throws now) and
 * sent before the first call resolves; every refusal is an Error whose message starts with
 * `records:` and says what to change.
 */
export const createRecords = (options: RecordsOptions): Records => {
  const declaration = declarationOf(options.collections);
  const refused = checkDeclaration(initialAgentState(), declaration);
  if (refused) fail(messageOf(refused));
  const transport =
    'store' in options
      ? options.store === 'memory'
        ? memoryTransport()
        : (sharedStores.get(options.store) ?? fail('records: unknown memory store: make it with memoryRecordsStore()'))
      : httpTransport(options.url, options.key, 'typescript');
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
        if (typeof plain !== 'object' || plain === null || Array.isArray(plain)) fail('records: value is not a JSON object: put a plain object');
        await transport.put(collection, id, plain, opts?.startedMs ?? null);
      }),
    get: <T>(collection: string, id: string) => after(() => transport.get(collection, id) as Promise<T | null>),
    query: <T>(collection: string, where: Record<string, unknown> = {}, page: { limit?: number; after?: Pick<RecordEntry, 'createdAt' | 'id'> } = {}) =>
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
        for (const r of await transport.export()) yield r as ExportedRecord;
      },
    }),
  };
};
