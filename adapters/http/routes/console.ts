import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { agentCollections } from '../../../commands/console-collections.ts';
import type { EventStore } from '../../../domain/ports/event-store.ts';
import type { ReadModelStore } from '../../../domain/ports/read-model.ts';
import type { ProjectionRunner } from '../../../projections/runner.ts';
import { recordHistories } from '../../../queries/console-records.ts';
import { statusOf } from '../status.ts';
import { tenantAbsence, tenantIds } from '../../../queries/tenants.ts';
import { PUBLIC } from '../route-auth.ts';
import { TenantParams } from '../schemas.ts';
import { Answers, ok, refusals } from '../responses.ts';
import { packageRoot } from '../../package-root.ts';

/** The console's files ship in the repository (`console/`): plain HTML, ES modules and CSS, no build step. */
const CONSOLE_DIR = new URL('console/', packageRoot);

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/**
 * Only same-origin files and calls, nothing inline, no frames, no forms posted anywhere: the
 * page holds a key in sessionStorage, so nothing foreign may ever run beside it.
 */
const CSP = "default-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; object-src 'none'";

/** Read once at start: the set of servable names is fixed, so no path can name another file. */
const loadFiles = (): ReadonlyMap<string, { body: Buffer; type: string }> => {
  const files = new Map<string, { body: Buffer; type: string }>();
  // A checkout or image without the console still serves the API; /console then answers 404.
  if (!existsSync(CONSOLE_DIR)) return files;
  for (const name of readdirSync(CONSOLE_DIR)) {
    const type = TYPES[name.slice(name.lastIndexOf('.'))];
    if (type && /^[a-z0-9-]+\.[a-z]+$/.test(name)) files.set(name, { body: readFileSync(new URL(name, CONSOLE_DIR)), type });
  }
  return files;
};

/** `GET /console` and its files (SPEC §14). Public: they hold no data; every call the page makes carries the key it was given. */
export const consoleRoutes = (app: FastifyInstance) => {
  const files = loadFiles();
  const serve = (reply: FastifyReply, name: string) => {
    const file = files.get(name);
    if (!file) return reply.code(404).send({ error: 'not_found', what: 'console file' });
    return reply
      .header('content-type', file.type)
      .header('content-security-policy', CSP)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', 'no-cache')
      .send(file.body);
  };
  app.get('/console', { config: PUBLIC, schema: { hide: true } }, async (_req, reply) => serve(reply, 'index.html'));
  app.get<{ Params: { file: string } }>('/console/:file', { config: PUBLIC, schema: { hide: true } }, async (req, reply) => serve(reply, req.params.file));
};

export interface ConsoleDeps {
  readonly store: EventStore;
  readonly db: ReadModelStore;
  readonly runner: ProjectionRunner;
  readonly now: () => number;
}

const RecordsQuery = z.strictObject({ plugin: z.string().min(1).max(200), scope: z.string().min(1).max(200).optional() });

/**
 * What the console reads besides the audit stream (SPEC §14): admin routes, read-only, inside
 * the admin scope. Record metadata comes from read models and carries no body.
 */
export const consoleAdminRoutes = (admin: FastifyInstance, deps: ConsoleDeps) => {
  const r = admin.withTypeProvider<ZodTypeProvider>();
  const security = [{ admin: [] }];
  const tags = ['console'];

  r.get(
    '/v1/console/tenants',
    { schema: { security, tags, summary: 'every tenant id', response: ok(Answers.consoleTenants, 'the tenant ids') } },
    async () => ({ tenants: await tenantIds(deps.db) }),
  );

  r.get(
    '/v1/tenants/:t/console/records',
    {
      schema: {
        params: TenantParams,
        querystring: RecordsQuery,
        security,
        tags,
        summary: "a plugin's records with their history: metadata only, no body",
        response: { ...ok(Answers.consoleRecords, 'the records'), ...refusals(404) },
      },
    },
    async (req, reply) => {
      const absent = await tenantAbsence(deps.db, req.params.t);
      if (absent) return reply.code(statusOf(absent)).send(absent);
      return { records: await recordHistories(deps.db, req.params.t, req.query.plugin, req.query.scope ?? null, 200) };
    },
  );

  r.get(
    '/v1/tenants/:t/console/collections',
    {
      schema: {
        params: TenantParams,
        security,
        tags,
        summary: "each agent's collections: names and counts, newest first",
        response: { ...ok(Answers.consoleCollections, 'the agents and their collections'), ...refusals(404) },
      },
    },
    async (req, reply) => {
      const absent = await tenantAbsence(deps.db, req.params.t);
      if (absent) return reply.code(statusOf(absent)).send(absent);
      return { agents: await agentCollections(deps.store, req.params.t) };
    },
  );

  r.get(
    '/v1/console/projections',
    {
      schema: {
        security,
        tags,
        summary: 'projection checkpoints and their lag behind the log',
        response: ok(Answers.consoleProjections, 'the log head and each projection'),
      },
    },
    async () => {
      const head = await deps.store.headPosition();
      const now = deps.now();
      const projections = await Promise.all(
        Object.entries(deps.runner.checkpoints()).map(async ([name, position]) => {
          // Seconds behind: the age of the oldest event this projection has not applied.
          const oldest = position < head ? (await deps.store.readAll(position, { limit: 1 }))[0] : undefined;
          return { name, position, lag_events: Math.max(0, head - position), lag_ms: oldest ? Math.max(0, now - oldest.recorded_at) : 0 };
        }),
      );
      return { head, projections: projections.sort((a, b) => a.name.localeCompare(b.name)) };
    },
  );
};
