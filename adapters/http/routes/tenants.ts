import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { getTenant, tenantAbsence } from '../../../queries/tenants.ts';
import { statusOf } from '../status.ts';
import type { HttpDeps } from '../deps.ts';
import { answer } from '../reply.ts';
import { CreateTenantBody, InstallPluginBody, KillParams, MoveTenantBody, RevocationsBody, TenantParams, TenantSettingsPatch } from '../schemas.ts';
import { Answers, ok, refusals } from '../responses.ts';

const security = [{ admin: [] }];

/**
 * What a deployment of one database answers to `database` and to a move. With several
 * (CUSTODIAN_DATABASES) the router in front of each database answers both itself, so these
 * routes are reached only when there is one.
 */
const oneDatabase = (field: string) => ({
  error: 'invalid' as const,
  field,
  reason: 'this deployment has one database (CUSTODIAN_DATABASES is unset)',
  message: `${field}: this deployment has one database (CUSTODIAN_DATABASES is unset), so tenants are not placed or moved: leave ${field} out, or name the tenant databases in CUSTODIAN_DATABASES=<name>=<postgres URL>,… and restart the instances (the operators' guide, "Tenants on several databases")`,
});

export const tenantRoutes = (app: FastifyInstance, deps: HttpDeps) => {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.post(
    '/v1/tenants',
    {
      schema: {
        body: CreateTenantBody,
        security,
        tags: ['admin'],
        summary: 'creates a tenant; with several databases, places it on one (`database`, else the one with the fewest tenants)',
        response: { ...ok(Answers.tenant, 'the tenant (and, with several databases, the database it was placed on)', 201), ...refusals(409) },
      },
    },
    async (req, reply) => {
      if (req.body.database !== undefined) return reply.code(400).send(oneDatabase('database'));
      return answer(
        reply,
        deps.runner,
        await deps.tenants.create(req.body.id, req.body.settings ?? {}, { correlationId: req.id }),
        (v) => ({ tenant: v.tenant }),
        201,
      );
    },
  );

  r.post(
    '/v1/tenants/:t/move',
    {
      schema: {
        params: TenantParams,
        body: MoveTenantBody,
        security,
        tags: ['admin'],
        summary:
          'with several databases: moves the tenant to another database online (its writes answer 503 moving meanwhile; the copy is checked by event count and audit root before the switch)',
        response: {
          ...ok(Answers.tenantMoved, 'the move: from, to, the events copied, the audit tree at the move and how long writes paused'),
          ...refusals(404, 409),
        },
      },
    },
    async (req, reply) => {
      // The tenant is named first: a move of one that does not exist is its 404, whatever the deployment.
      if (!(await getTenant(deps.db, req.params.t))) {
        const absent = (await tenantAbsence(deps.db, req.params.t)) ?? { error: 'not_found', what: 'tenant' };
        return reply.code(statusOf(absent)).send(absent);
      }
      return reply.code(400).send(oneDatabase('to'));
    },
  );

  r.get(
    '/v1/tenants/:t',
    {
      schema: {
        params: TenantParams,
        security,
        tags: ['admin'],
        summary: 'reads a tenant and its settings (with several databases, the one that holds it)',
        response: { ...ok(Answers.tenant, 'the tenant'), ...refusals(404) },
      },
    },
    async (req, reply) => {
      const tenant = await getTenant(deps.db, req.params.t);
      if (tenant) return reply.send({ tenant });
      const absent = (await tenantAbsence(deps.db, req.params.t)) ?? { error: 'not_found', what: 'tenant' };
      return reply.code(statusOf(absent)).send(absent);
    },
  );

  r.patch(
    '/v1/tenants/:t',
    {
      schema: {
        params: TenantParams,
        body: TenantSettingsPatch,
        security,
        tags: ['admin'],
        summary: "changes a tenant's settings; a change that takes authority away is a revocation",
        response: { ...ok(Answers.tenantPatched, 'the tenant, and the revocation when authority was taken away'), ...refusals(404, 409) },
      },
    },
    async (req, reply) =>
      answer(reply, deps.runner, await deps.revocations.changeSettings(req.params.t, req.body, { correlationId: req.id }), (v) => ({
        tenant: v.tenant,
        // A change that took authority away was a revocation batch (SPEC §6).
        ...(v.revocation
          ? {
              revocation: {
                epoch: v.revocation.epoch,
                stopped: v.revocation.stopped,
                indeterminate: v.revocation.indeterminate,
                receipt: v.revocation.receipt,
              },
            }
          : {}),
      })),
  );

  r.post(
    '/v1/tenants/:t/plugins',
    {
      schema: {
        params: TenantParams,
        body: InstallPluginBody,
        security,
        tags: ['admin'],
        summary: 'installs or upgrades a plugin',
        response: { ...ok(Answers.plugin, 'the plugin and its install generation', 201), ...refusals(404, 409) },
      },
    },
    async (req, reply) =>
      answer(
        reply,
        deps.runner,
        await deps.tenants.installPlugin(req.params.t, req.body, { correlationId: req.id }),
        (v) => ({ plugin: v.plugin, install_gen: v.plugin.install_gen }),
        201,
      ),
  );

  r.post(
    '/v1/tenants/:t/revocations',
    {
      schema: {
        params: TenantParams,
        body: RevocationsBody,
        security,
        tags: ['admin'],
        summary: 'applies a batch of revocations',
        response: { ...ok(Answers.revocation, 'the new authority epoch, the jobs stopped and the receipt'), ...refusals(404, 409) },
      },
    },
    async (req, reply) =>
      answer(
        reply,
        deps.runner,
        await deps.revocations.apply(req.params.t, req.body.revocations, req.body.request_id),
        ({ epoch, stopped, indeterminate, receipt }) => ({ epoch, stopped, indeterminate, receipt }),
      ),
  );

  r.delete(
    '/v1/tenants/:t/kills/:plugin/:agent',
    {
      schema: {
        params: KillParams,
        security,
        tags: ['admin'],
        summary: 'lifts a kill_agent: the agent starts jobs again',
        response: { ...ok(Answers.killLifted, 'the kill is lifted'), ...refusals(404, 409) },
      },
    },
    async (req, reply) => {
      const agent = `${req.params.plugin}/${req.params.agent}`;
      return answer(reply, deps.runner, await deps.tenants.liftKill(req.params.t, agent, { correlationId: req.id }), () => ({ agent, lifted: true }));
    },
  );
};
