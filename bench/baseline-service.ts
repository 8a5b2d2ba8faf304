import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';
import { ownCpuMs, serveParent } from './child-ipc.ts';
import { openEmmett, StaleRecord, type EmmettAppender } from './emmett.ts';
import { RAW_TABLE } from './eventstore.ts';

/**
 * The HTTP services a user could build instead of Custodian, alone in a child process as
 * Custodian's is (`bench/service-process.ts`), on the same PostgreSQL: fastify with one pooled
 * single-row INSERT per POST (`/insert/v1/records`), and fastify with Emmett's PostgreSQL event
 * store, where a put is `CommandHandler` reading the record's stream, deciding and appending
 * (`/emmett/v1/records`). Both take Custodian's put body (`scope`, `record_key`, `body`,
 * `expect`) and its pool size (20). Emmett's get (`/emmett/v1/records/get`, Custodian's get
 * body: `scope`, `record_key`) folds the record's stream with `aggregateStream` and answers the
 * record, or 404. Driven over IPC like the service process.
 */
const POOL = 20;

interface Put {
  readonly scope: string;
  readonly record_key: string;
  readonly body: Record<string, unknown>;
  readonly expect: number;
}
const putSchema = {
  type: 'object',
  required: ['scope', 'record_key', 'body', 'expect'],
  properties: {
    scope: { type: 'string', minLength: 1, maxLength: 200 },
    record_key: { type: 'string', minLength: 1, maxLength: 200 },
    body: { type: 'object' },
    expect: { type: 'integer', minimum: 0 },
  },
} as const;

interface Get {
  readonly scope: string;
  readonly record_key: string;
}
const getSchema = {
  type: 'object',
  required: ['scope', 'record_key'],
  properties: {
    op: { const: 'get' },
    scope: { type: 'string', minLength: 1, maxLength: 200 },
    record_key: { type: 'string', minLength: 1, maxLength: 200 },
  },
} as const;

let app: FastifyInstance | null = null;
let pool: pg.Pool | null = null;
let emmett: EmmettAppender | null = null;

const start = async (sqlUrl: string, emmettUrl: string) => {
  pool = new pg.Pool({ connectionString: sqlUrl, max: POOL });
  pool.on('error', () => undefined);
  await pool.query(RAW_TABLE);
  const opened = await openEmmett(emmettUrl, POOL);
  if ('unavailable' in opened) throw new Error(`Emmett unavailable: ${opened.unavailable}`);
  emmett = opened;
  const sql = pool;
  const store = opened;
  app = Fastify({ logger: false });
  app.post<{ Body: Put }>('/insert/v1/records', { schema: { body: putSchema } }, async (req) => {
    await sql.query('INSERT INTO bench_raw (stream, data) VALUES ($1, $2)', [`${req.body.scope}/${req.body.record_key}`, JSON.stringify(req.body.body)]);
    return { version: 1, scope: req.body.scope, key: req.body.record_key };
  });
  app.post<{ Body: Put }>('/emmett/v1/records', { schema: { body: putSchema } }, async (req, reply) => {
    try {
      const version = await store.putRecord(`${req.body.scope}/${req.body.record_key}`, req.body.body, req.body.expect);
      return { version, scope: req.body.scope, key: req.body.record_key };
    } catch (error) {
      if (error instanceof StaleRecord) return reply.code(409).send({ error: 'stale', current: error.current });
      throw error;
    }
  });
  app.post<{ Body: Get }>('/emmett/v1/records/get', { schema: { body: getSchema } }, async (req, reply) => {
    const record = await store.getRecord(`${req.body.scope}/${req.body.record_key}`);
    if (record === null) return reply.code(404).send({ error: 'not_found' });
    return { record: { scope: req.body.scope, key: req.body.record_key, version: record.version, body: record.body } };
  });
  return app.listen({ port: 0, host: '127.0.0.1' });
};

serveParent(async (m) => {
  switch (m.op) {
    case 'start':
      return start(String(m.sqlUrl), String(m.emmettUrl));
    case 'cpu':
      return ownCpuMs();
    case 'close':
      await app?.close();
      await emmett?.close();
      await pool?.end();
      return null;
    default:
      throw new Error(`unknown op ${m.op}`);
  }
});
