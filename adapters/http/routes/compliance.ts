import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import * as E from 'fp-ts/lib/Either.js';
import type { ComplianceCommands } from '../../../commands/compliance.ts';
import { appendFacts } from '../../../commands/append-facts.ts';
import { importTenant } from '../../../commands/import.ts';
import type { Clock } from '../../../domain/ports/clock.ts';
import type { EventStore } from '../../../domain/ports/event-store.ts';
import type { ReadModelStore } from '../../../domain/ports/read-model.ts';
import type { Sealer } from '../../../domain/ports/sealer.ts';
import { refusal } from '../../../domain/shared/refusal.ts';
import type { ProjectionRunner } from '../../../projections/runner.ts';
import { exportTenant } from '../../../queries/export.ts';
import { answer } from '../reply.ts';
import { ADMIN } from '../route-auth.ts';
import { MAX_IMPORT_BYTES } from '../body-limits.ts';
import { importRefusal } from '../hygiene.ts';
import { statusOf } from '../status.ts';
import { ErasureBody, ExportQuery, HoldBody, HoldParams, RenewalsQuery, TenantParams } from '../schemas.ts';

export interface ComplianceDepsHttp {
  readonly compliance: ComplianceCommands;
  readonly store: EventStore;
  readonly db: ReadModelStore;
  readonly sealer: Sealer;
  readonly clock: Clock;
  readonly runner: ProjectionRunner;
}

const security = [{ admin: [] }];

export const complianceRoutes = (app: FastifyInstance, deps: ComplianceDepsHttp) => {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const known = async (tenant: string) => (await deps.db.query('SELECT 1 FROM rm_tenants WHERE id = $1', [tenant])).rows.length > 0;

  r.post('/v1/tenants/:t/holds', { config: ADMIN, schema: { params: TenantParams, body: HoldBody, security, tags: ['compliance'] } }, async (req, reply) =>
    answer(reply, deps.runner, await deps.compliance.placeHold(req.params.t, req.body.selector, req.body.reason), (v) => ({ hold: v.hold }), 201));

  r.delete('/v1/tenants/:t/holds/:hold', { config: ADMIN, schema: { params: HoldParams, security, tags: ['compliance'] } }, async (req, reply) =>
    answer(reply, deps.runner, await deps.compliance.releaseHold(req.params.t, req.params.hold), ({ released, resumed }) => ({ released, resumed })));

  r.post('/v1/tenants/:t/erasures', { config: ADMIN, schema: { params: TenantParams, body: ErasureBody, security, tags: ['compliance'] } }, async (req, reply) =>
    answer(reply, deps.runner, await deps.compliance.erase(req.params.t, req.body.data_subject), ({ erased, deferred, receipt }) => ({ erased, deferred, receipt })));

  r.post('/v1/tenants/:t/retention/run', { config: ADMIN, schema: { params: TenantParams, security, tags: ['compliance'] } }, async (req, reply) => {
    const result = await deps.compliance.retention(req.params.t);
    return E.isLeft(result) ? reply.code(statusOf(result.left)).send(result.left) : reply.send(result.right);
  });

  r.get('/v1/tenants/:t/renewals', { config: ADMIN, schema: { params: TenantParams, querystring: RenewalsQuery, security, tags: ['compliance'] } }, async (req, reply) => {
    if (!(await known(req.params.t))) return reply.code(404).send(refusal('not_found', { what: 'tenant' }));
    const { rows } = await deps.db.query(
      `SELECT plugin, scope, key, version, ends_at::float8 AS ends_at, requested_ms::float8 AS requested_ms FROM rm_renewals
       WHERE tenant = $1 AND ($2::text IS NULL OR plugin = $2) ORDER BY plugin, scope, key`,
      [req.params.t, req.query.plugin ?? null],
    );
    return reply.send({ renewals: rows });
  });

  r.get('/v1/tenants/:t/export', { config: ADMIN, schema: { params: TenantParams, querystring: ExportQuery, security, tags: ['compliance'] } }, async (req, reply) => {
    if (!(await known(req.params.t))) return reply.code(404).send(refusal('not_found', { what: 'tenant' }));
    const exported = await exportTenant(deps.store, deps.sealer, req.params.t, {
      ...(req.query.position !== undefined ? { position: req.query.position } : {}),
      versions: req.query.versions === 'true',
      now: deps.clock.now(),
    });
    // Exports are audited; the audit fact lands after the position the export was built to.
    await appendFacts(deps.store, `exports:${req.params.t}`, req.params.t, [
      { type: 'TenantExported', data: { tenant: req.params.t, position: exported.position, records: exported.records, versions: exported.versions, sha256: exported.sha256, exported_ms: deps.clock.now() } },
    ]);
    return reply.header('content-type', 'application/x-ndjson').send(exported.text);
  });

  // JSON Lines are taken by this route alone, in a context of its own, and only read once
  // the admin key passed (authorisation runs in onRequest, before any body is read).
  void app.register(async (scope) => {
    scope.addContentTypeParser('application/x-ndjson', { parseAs: 'string' }, (_req, body, done) => done(null, String(body)));
    scope.withTypeProvider<ZodTypeProvider>().post('/v1/tenants/:t/import', {
      config: ADMIN,
      bodyLimit: MAX_IMPORT_BYTES,
      schema: { params: TenantParams, security, tags: ['compliance'], summary: 'load an export (application/x-ndjson) into an empty tenant' },
    }, async (req, reply) => {
      if (typeof req.body !== 'string') return reply.code(415).send(refusal('unsupported_media_type', { reason: 'send the export as application/x-ndjson' }));
      const bad = importRefusal(req.body);
      if (bad) return reply.code(400).send(bad);
      return answer(reply, deps.runner, await importTenant(deps, req.params.t, req.body), ({ records, versions }) => ({ records, versions }));
    });
  });
};
