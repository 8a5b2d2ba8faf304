import type { IncomingMessage, ServerResponse } from 'node:http';
import type { InjectOptions } from 'fastify';
import { MAX_ADMIN_BODY_BYTES } from '../http/body-limits.ts';
import type { Cells } from './cells.ts';
import { forwardedHeaders, readBody, sendInjected, sendJson } from './http-io.ts';
import { mergeMetricTexts } from './metrics-merge.ts';
import type { PlacementStore } from './placement.ts';

/**
 * `GET /v1/console/tenants` across every database: each one's own list, or — for a database
 * that does not answer — the tenants the control database places there, so the list stays whole.
 */
export const consoleTenants = async (res: ServerResponse, cells: Cells, placement: PlacementStore, headers: InjectOptions['headers']): Promise<void> => {
  const lists = await Promise.all(
    cells.names.map(async (name) => {
      const answer = await cells.byName.get(name)!.app.inject({ method: 'GET', url: '/v1/console/tenants', headers });
      if (answer.statusCode === 200) return (answer.json() as { tenants: string[] }).tenants;
      return (await placement.all()).filter((p) => p.database === name).map((p) => p.tenant);
    }),
  );
  sendJson(res, 200, { tenants: [...new Set(lists.flat())].sort() });
};

/** `POST /v1/_clock` (tests): every cell keeps its own clock, so each is moved alike. */
export const clockEverywhere = async (req: IncomingMessage, res: ServerResponse, cells: Cells): Promise<void> => {
  const payload = (await readBody(req, MAX_ADMIN_BODY_BYTES)) ?? Buffer.alloc(0);
  const answers = await Promise.all(
    cells.names.map((name) => cells.byName.get(name)!.app.inject({ method: 'POST', url: req.url ?? '/v1/_clock', headers: forwardedHeaders(req), payload })),
  );
  sendInjected(res, answers[0]!);
};

/**
 * `GET /metrics`: every cell's registry (its samples labelled `database`) in one text, and
 * `custodian_database_up` per database — 0 for one whose metrics could not be read.
 */
export const metricsOfAll = async (res: ServerResponse, cells: Cells): Promise<void> => {
  const texts = await Promise.all(
    cells.names.map((name) =>
      cells.byName
        .get(name)!
        .metrics.registry.metrics()
        .catch(() => null),
    ),
  );
  const up = [
    '# HELP custodian_database_up Whether the tenant database answered this scrape (1) or not (0)',
    '# TYPE custodian_database_up gauge',
    ...cells.names.map((name, i) => `custodian_database_up{database="${name}"} ${texts[i] === null ? 0 : 1}`),
  ].join('\n');
  const text = mergeMetricTexts([...texts.filter((t): t is string => t !== null), up]);
  res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
};

/**
 * `GET /healthz`: this instance routes while the control database or any tenant database
 * answers (a database down makes only its tenants 503); each database's state is named.
 */
export const health = async (res: ServerResponse, cells: Cells, placement: PlacementStore): Promise<void> => {
  const answers = async (q: () => Promise<unknown>) =>
    q().then(
      () => 'ok' as const,
      () => 'unavailable' as const,
    );
  const control = await answers(() => placement.ping());
  const databases = Object.fromEntries(
    await Promise.all(cells.names.map(async (n) => [n, await answers(() => cells.byName.get(n)!.db.query('SELECT 1'))] as const)),
  );
  const all = [control, ...Object.values(databases)];
  const status = all.every((s) => s === 'ok') ? 'ok' : 'degraded';
  if (all.every((s) => s === 'unavailable')) return sendJson(res, 503, { status: 'unavailable', reason: 'no database answers', control, databases });
  sendJson(res, 200, { status, event_store: 'postgres', control, databases });
};
