import { readdirSync, readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { PUBLIC } from '../route-auth.ts';

/** The console's files ship in the repository (`console/`): plain HTML, ES modules and CSS, no build step. */
const CONSOLE_DIR = new URL('../../../console/', import.meta.url);

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
