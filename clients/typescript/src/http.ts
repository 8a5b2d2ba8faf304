import http from 'node:http';
import https from 'node:https';
import { RecordsError, refuse } from './errors.ts';
import type { ExportedRecord, JsonObject, RecordsTransport } from './types.ts';

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

/** A refusal's fields other than its code and message: `field`, `reason`, `what`, `current` … */
const fieldsOf = (json: Record<string, unknown>) => Object.fromEntries(Object.entries(json).filter(([k]) => k !== 'error' && k !== 'message'));

/**
 * The agent records API of a service, call by call, with no declaration of its own: for a
 * program that serves another's calls (an MCP server). Refusals throw `RecordsError` as
 * `createRecords` does.
 */
/**
 * The surface a caller names itself as (the `x-custodian-client` header), so a refusal says what
 * to call on that surface: this SDK's `createRecords`, or an MCP server's tools.
 */
export type Surface = 'typescript' | 'mcp';

export const recordsClient = (url: string, key: string, surface: Surface = 'typescript'): RecordsTransport => {
  const base = url.replace(/\/+$/, '');
  let parsed: URL | null = null;
  try {
    parsed = new URL(base);
  } catch {
    parsed = null;
  }
  /** An answer that is not the agent records API's: another server, or a wrong path. */
  const wrong = (status: number): never => {
    throw new RecordsError(
      status,
      'unexpected_answer',
      {},
      `records: the service at ${base} answered ${status} without an answer of the agent records API: check the url (the service's address, e.g. http://127.0.0.1:8080) and the agent key`,
    );
  };
  /**
   * One call. Every answer that is not a success is a RecordsError with the service's status,
   * code and message; only `get` reads a 404 as "absent", and only the record route's own
   * (`what: "record"`), never a route the service does not have, nor another server's 404.
   */
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    absent = false,
  ): Promise<{ status: number; type: string; json: Record<string, unknown>; text: string }> => {
    if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:'))
      return refuse('invalid', `records: ${JSON.stringify(url)} is not an http(s) url: give the service's address, e.g. http://127.0.0.1:8080`, {
        field: 'url',
      });
    let res: Answer;
    try {
      res = await request(
        parsed,
        method,
        path,
        {
          authorization: `Bearer ${key}`,
          accept: 'application/json, application/x-ndjson',
          'x-custodian-client': surface,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body === undefined ? undefined : JSON.stringify(body),
      );
    } catch (error) {
      return refuse('unreachable', `records: the service at ${base} could not be reached (${(error as Error).message}): start it, or give the right url`);
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
        throw new RecordsError(
          res.status,
          'not_found',
          fieldsOf(json),
          `records: the service at ${base} has no route ${method} ${String(json.path)}: check the url (the service's address, e.g. http://127.0.0.1:8080)`,
        );
      if (typeof json.error !== 'string' && typeof json.message !== 'string') wrong(res.status);
      const code = typeof json.error === 'string' ? json.error : `http_${res.status}`;
      throw new RecordsError(
        res.status,
        code,
        fieldsOf(json),
        typeof json.message === 'string'
          ? json.message
          : `records: the service answered ${res.status} ${code}${typeof json.field === 'string' ? ` (${json.field}: ${String(json.reason)})` : ''}: check the request, the url and the agent key`,
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
      const records: ExportedRecord[] = [];
      for (const l of r.text.split('\n').filter((line) => line.trim() !== '')) {
        let line: unknown;
        try {
          line = JSON.parse(l);
        } catch {
          return wrong(r.status);
        }
        const e = line as Partial<ExportedRecord>;
        if (typeof e !== 'object' || e === null || typeof e.collection !== 'string' || typeof e.id !== 'string') return wrong(r.status);
        records.push(e as ExportedRecord);
      }
      return records;
    },
  };
};
