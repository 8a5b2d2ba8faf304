import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { ReadModelStore } from '../../../domain/ports/read-model.ts';
import { invalid, refusal } from '../../../domain/shared/refusal.ts';
import { auditSize, type AuditQueries } from '../../../queries/audit.ts';
import { tenantExists } from '../../../queries/tenants.ts';
import * as E from 'fp-ts/lib/Either.js';
import { fitAskOf, fitAuditLines } from '../fitted.ts';
import { AUDITOR } from '../route-auth.ts';
import { AuditQuery, ProofQuery, TenantParams } from '../schemas.ts';
import { Answers, ok, okAs } from '../responses.ts';

// Read-only and tenant-bound: the admin key or an auditor key of the tenant (SPEC §14).
const security: Record<string, string[]>[] = [{ admin: [] }, { auditor: [] }];

export const auditRoutes = (app: FastifyInstance, deps: { audit: AuditQueries; db: ReadModelStore }) => {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const known = (tenant: string) => tenantExists(deps.db, tenant);

  r.get(
    '/v1/tenants/:t/audit',
    {
      config: AUDITOR,
      schema: {
        params: TenantParams,
        querystring: AuditQuery,
        security,
        tags: ['audit'],
        summary: "the tenant's audit stream as JSON Lines, oldest first, filtered",
        response: okAs('application/x-ndjson', 'JSON Lines, one audit entry a line'),
      },
    },
    async (req, reply) => {
      if (!(await known(req.params.t))) return reply.code(404).send(refusal('not_found', { what: 'tenant' }));
      const { view, budget, query, ...filters } = req.query;
      const lines = await deps.audit.lines(req.params.t, filters);
      const ask = fitAskOf({ view, budget, query });
      const text = E.isRight(ask) && ask.right !== null ? fitAuditLines(lines, ask.right) : lines.map((l) => `${l}\n`).join('');
      return reply.header('content-type', 'application/x-ndjson').send(text);
    },
  );

  r.get(
    '/v1/tenants/:t/audit/checkpoint',
    {
      config: AUDITOR,
      schema: {
        params: TenantParams,
        security,
        tags: ['audit'],
        summary: 'the signed tree head of the audit log',
        response: ok(Answers.checkpoint, 'the checkpoint'),
      },
    },
    async (req, reply) => {
      if (!(await known(req.params.t))) return reply.code(404).send(refusal('not_found', { what: 'tenant' }));
      return reply.send(await deps.audit.checkpoint(req.params.t));
    },
  );

  r.get(
    '/v1/tenants/:t/audit/proof',
    {
      config: AUDITOR,
      schema: {
        params: TenantParams,
        querystring: ProofQuery,
        security,
        tags: ['audit'],
        summary: 'an inclusion proof (leaf, size) or a consistency proof (from, to)',
        response: ok(Answers.proof, 'the proof'),
      },
    },
    async (req, reply) => {
      if (!(await known(req.params.t))) return reply.code(404).send(refusal('not_found', { what: 'tenant' }));
      const size = await auditSize(deps.db, req.params.t);
      const q = req.query;
      if (q.leaf !== undefined && q.size !== undefined && q.from === undefined && q.to === undefined) {
        if (q.size > size) return reply.code(400).send(invalid('size', `the log holds ${size} entries`));
        if (q.leaf >= q.size) return reply.code(400).send(invalid('leaf', 'a leaf index is below the tree size'));
        return reply.send(await deps.audit.inclusion(req.params.t, q.leaf, q.size));
      }
      if (q.from !== undefined && q.to !== undefined && q.leaf === undefined && q.size === undefined) {
        if (q.to > size) return reply.code(400).send(invalid('to', `the log holds ${size} entries`));
        if (q.from > q.to) return reply.code(400).send(invalid('from', 'from is at most to'));
        return reply.send(await deps.audit.consistency(req.params.t, q.from, q.to));
      }
      return reply.code(400).send(invalid('query', 'ask leaf and size (inclusion) or from and to (consistency)'));
    },
  );
};
