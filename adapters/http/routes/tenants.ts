import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { getTenant } from '../../../queries/tenants.ts';
import type { HttpDeps } from '../deps.ts';
import { answer } from '../reply.ts';
import { ADMIN, PUBLIC } from '../route-auth.ts';
import { CreateTenantBody, InstallPluginBody, RevocationsBody, TenantParams, TenantSettingsPatch } from '../schemas.ts';

const security = [{ admin: [] }];

export const tenantRoutes = (app: FastifyInstance, deps: HttpDeps) => {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.post('/v1/tenants', { config: ADMIN, schema: { body: CreateTenantBody, security, tags: ['admin'] } }, async (req, reply) =>
    answer(reply, deps.runner, await deps.tenants.create(req.body.id, req.body.settings ?? {}, { correlationId: req.id }), (v) => ({ tenant: v.tenant }), 201));

  r.get('/v1/tenants/:t', { config: ADMIN, schema: { params: TenantParams, security, tags: ['admin'] } }, async (req, reply) => {
    const tenant = await getTenant(deps.db, req.params.t);
    return tenant ? reply.send({ tenant }) : reply.code(404).send({ error: 'not_found', what: 'tenant' });
  });

  r.patch('/v1/tenants/:t', { config: ADMIN, schema: { params: TenantParams, body: TenantSettingsPatch, security, tags: ['admin'] } }, async (req, reply) =>
    answer(reply, deps.runner, await deps.tenants.changeSettings(req.params.t, req.body, { correlationId: req.id }), (v) => ({ tenant: v.tenant })));

  r.post('/v1/tenants/:t/plugins', { config: ADMIN, schema: { params: TenantParams, body: InstallPluginBody, security, tags: ['admin'] } }, async (req, reply) =>
    answer(reply, deps.runner, await deps.tenants.installPlugin(req.params.t, req.body, { correlationId: req.id }),
      (v) => ({ plugin: v.plugin, install_gen: v.plugin.install_gen }), 201));

  r.post('/v1/tenants/:t/revocations', { config: ADMIN, schema: { params: TenantParams, body: RevocationsBody, security, tags: ['admin'] } }, async (req, reply) =>
    answer(reply, deps.runner, await deps.revocations.apply(req.params.t, req.body.revocations), ({ epoch, stopped, indeterminate, receipt }) => ({ epoch, stopped, indeterminate, receipt })));

  r.get('/v1/audit-key', { config: PUBLIC, schema: { tags: ['audit'], summary: 'the audit public key (PEM, SPKI)' } }, async (_req, reply) =>
    reply.header('content-type', 'application/x-pem-file').send(deps.auditPublicKey));
};
