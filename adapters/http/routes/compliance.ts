import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import * as E from 'fp-ts/lib/Either.js';
import type { ComplianceCommands } from '../../../commands/compliance.ts';
import { handleCommand } from '../../../commands/handle.ts';
import { importTenant } from '../../../commands/import.ts';
import type { Clock } from '../../../domain/ports/clock.ts';
import type { EventStore } from '../../../domain/ports/event-store.ts';
import type { ReadModelStore } from '../../../domain/ports/read-model.ts';
import type { Sealer } from '../../../domain/ports/sealer.ts';
import { invalid, refusal } from '../../../domain/shared/refusal.ts';
import type { ProjectionRunner } from '../../../projections/runner.ts';
import { exportDecider } from '../../../domain/compliance/export.ts';
import { exportTenant } from '../../../queries/export.ts';
import { renewals } from '../../../queries/renewals.ts';
import { tenantAbsence } from '../../../queries/tenants.ts';
import { answer } from '../reply.ts';
import { MAX_IMPORT_BYTES } from '../body-limits.ts';
import { importRefusal } from '../hygiene.ts';
import { importLinesRefusal } from '../import-lines.ts';
import { fitAskOf, fitExportText } from '../fitted.ts';
import { statusOf } from '../status.ts';
import { ErasureBody, ExportQuery, HoldBody, HoldParams, RenewalsQuery, TenantParams } from '../schemas.ts';
import { Answers, bodyCheckedByHandler, ok, okAs, refusals } from '../responses.ts';
import { z } from 'zod';

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

  r.post(
    '/v1/tenants/:t/holds',
    {
      schema: {
        params: TenantParams,
        body: HoldBody,
        security,
        tags: ['compliance'],
        summary: 'places a legal hold',
        response: { ...ok(Answers.hold, 'the hold', 201), ...refusals(404, 409) },
      },
    },
    async (req, reply) =>
      answer(reply, deps.runner, await deps.compliance.placeHold(req.params.t, req.body.selector, req.body.reason), (v) => ({ hold: v.hold }), 201),
  );

  r.delete(
    '/v1/tenants/:t/holds/:hold',
    {
      schema: {
        params: HoldParams,
        security,
        tags: ['compliance'],
        summary: 'releases a legal hold',
        response: { ...ok(Answers.holdReleased, 'what the release let go'), ...refusals(404, 409) },
      },
    },
    async (req, reply) =>
      answer(reply, deps.runner, await deps.compliance.releaseHold(req.params.t, req.params.hold), ({ released, resumed }) => ({ released, resumed })),
  );

  r.post(
    '/v1/tenants/:t/erasures',
    {
      schema: {
        params: TenantParams,
        body: ErasureBody,
        security,
        tags: ['compliance'],
        summary: "erases a data subject's records",
        response: { ...ok(Answers.erasure, 'what was erased, what waits for a hold, and the receipt'), ...refusals(404, 409) },
      },
    },
    async (req, reply) =>
      answer(reply, deps.runner, await deps.compliance.erase(req.params.t, req.body.data_subject), ({ erased, deferred, receipt }) => ({
        erased,
        deferred,
        receipt,
      })),
  );

  r.delete(
    '/v1/tenants/:t',
    {
      schema: {
        params: TenantParams,
        security,
        tags: ['compliance'],
        summary: 'removes a tenant by crypto-shredding its keys; refused while a legal hold is in force',
        response: { ...ok(Answers.tenantRemoved, 'the tenant removed: its jobs stopped, its keys shredded, its audit log kept'), ...refusals(404, 409) },
      },
    },
    async (req, reply) =>
      answer(reply, deps.runner, await deps.compliance.removeTenant(req.params.t), ({ tenant, removed_ms, already_removed, stopped, keys_shredded }) => ({
        tenant,
        removed: true,
        removed_ms,
        already_removed,
        stopped,
        keys_shredded,
      })),
  );

  r.post(
    '/v1/tenants/:t/retention/run',
    {
      schema: {
        params: TenantParams,
        security,
        tags: ['compliance'],
        summary: 'runs retention now',
        response: { ...ok(Answers.retention, 'the counts removed'), ...refusals(404, 409) },
      },
    },
    async (req, reply) => {
      const result = await deps.compliance.retention(req.params.t);
      return E.isLeft(result) ? reply.code(statusOf(result.left)).send(result.left) : reply.send(result.right);
    },
  );

  r.get(
    '/v1/tenants/:t/renewals',
    {
      schema: {
        params: TenantParams,
        querystring: RenewalsQuery,
        security,
        tags: ['compliance'],
        summary: 'records whose end is near, to renew',
        response: { ...ok(Answers.renewals, 'the renewals'), ...refusals(404) },
      },
    },
    async (req, reply) => {
      const absent = await tenantAbsence(deps.db, req.params.t);
      if (absent) return reply.code(statusOf(absent)).send(absent);
      return reply.send({ renewals: await renewals(deps.db, req.params.t, req.query.plugin ?? null) });
    },
  );

  r.get(
    '/v1/tenants/:t/export',
    {
      schema: {
        params: TenantParams,
        querystring: ExportQuery,
        security,
        tags: ['compliance'],
        summary: "the tenant's records as JSON Lines, ending in a manifest line",
        response: { ...okAs('application/x-ndjson', 'JSON Lines'), ...refusals(404, 409) },
      },
    },
    async (req, reply) => {
      const absent = await tenantAbsence(deps.db, req.params.t);
      if (absent) return reply.code(statusOf(absent)).send(absent);
      // A position the log has not reached would name bytes that a later write changes.
      if (req.query.position !== undefined) {
        const head = (await deps.store.committedHead?.()) ?? (await deps.store.headPosition());
        const beyond = invalid('position', `beyond the log's end (${head})`);
        if (req.query.position > head) return reply.code(statusOf(beyond)).send(beyond);
      }
      const exported = await exportTenant(deps.store, deps.sealer, req.params.t, {
        ...(req.query.position !== undefined ? { position: req.query.position } : {}),
        versions: req.query.versions === 'true',
        now: deps.clock.now(),
      });
      // Exports are audited; the audit fact lands after the position the export was built to.
      const { position, records, versions, sha256 } = exported;
      const audited = await handleCommand(
        deps.store,
        `exports:${req.params.t}`,
        exportDecider,
        { tenant: req.params.t, position, records, versions, sha256, now: deps.clock.now() },
        { tenant: req.params.t },
      );
      if (E.isLeft(audited)) return reply.code(statusOf(audited.left)).send(audited.left);
      const ask = fitAskOf(req.query);
      const text = E.isRight(ask) && ask.right !== null ? fitExportText(exported.text, ask.right) : exported.text;
      return reply.header('content-type', 'application/x-ndjson').send(text);
    },
  );

  // JSON Lines are taken by this route alone, in a context of its own, and only read once
  // the admin key passed (the admin scope's onRequest hook, before any body is read).
  void app.register(async (scope) => {
    scope.addContentTypeParser('application/x-ndjson', { parseAs: 'string' }, (_req, body, done) => done(null, String(body)));
    scope.withTypeProvider<ZodTypeProvider>().post(
      '/v1/tenants/:t/import',
      {
        bodyLimit: MAX_IMPORT_BYTES,
        validatorCompiler: bodyCheckedByHandler,
        schema: {
          params: TenantParams,
          security,
          tags: ['compliance'],
          summary: 'load an export (application/x-ndjson) into an empty tenant',
          consumes: ['application/x-ndjson'],
          body: z.string().meta({ description: 'an export, JSON Lines' }),
          response: { ...ok(Answers.imported, 'the records and versions loaded'), ...refusals(404, 409) },
        },
      },
      async (req, reply) => {
        if (typeof req.body !== 'string') return reply.code(415).send(refusal('unsupported_media_type', { reason: 'send the export as application/x-ndjson' }));
        const bad = importRefusal(req.body) ?? importLinesRefusal(req.body);
        if (bad) return reply.code(400).send(bad);
        return answer(reply, deps.runner, await importTenant(deps, req.params.t, req.body), ({ records, versions }) => ({ records, versions }));
      },
    );
  });
};
