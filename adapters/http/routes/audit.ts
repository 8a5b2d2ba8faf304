import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { WitnessCommands } from '../../../commands/audit-witnesses.ts';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { ReadModelStore } from '../../../domain/ports/read-model.ts';
import { invalid, refusal } from '../../../domain/shared/refusal.ts';
import { auditSize, type AuditQueries } from '../../../queries/audit.ts';
import { tenantExists } from '../../../queries/tenants.ts';
import * as E from 'fp-ts/lib/Either.js';
import { fitAskOf, fitAuditLines } from '../fitted.ts';
import { AUDITOR } from '../route-auth.ts';
import { statusOf } from '../status.ts';
import { AuditQuery, plainDecimal, ProofQuery, TenantParams } from '../schemas.ts';
import { Answers, bodyCheckedByHandler, ok, okAs, okIn, refusals } from '../responses.ts';

// Read-only and tenant-bound: the admin key or an auditor key of the tenant (SPEC §14).
const security: Record<string, string[]>[] = [{ admin: [] }, { auditor: [] }];

/** `?size=n`: a plain decimal (no sign, exponent or spaces), the checkpoint of the tree at that size. */
const CheckpointQuery = z.strictObject({ size: plainDecimal('size, a tree size', 0, Number.MAX_SAFE_INTEGER).optional() });

/** The note when the caller asks for text (`Accept: text/plain`, as note and checkpoint tools do), else JSON. */
const wantsNote = (req: FastifyRequest) => {
  const accept = req.headers.accept ?? '';
  return /\btext\/plain\b/.test(accept) && !/\bapplication\/json\b/.test(accept);
};

export const auditRoutes = (app: FastifyInstance, deps: { audit: AuditQueries; db: ReadModelStore; witnesses: WitnessCommands }) => {
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
        response: { ...okAs('application/x-ndjson', 'JSON Lines, one audit entry a line'), ...refusals(404) },
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
        querystring: CheckpointQuery,
        security,
        tags: ['audit'],
        summary: 'the signed tree head: JSON, or with Accept: text/plain the C2SP signed note with every witness cosignature',
        response: {
          ...okIn({ 'application/json': Answers.checkpoint, 'text/plain': z.string() }, 'the checkpoint: JSON, or the signed note (Accept: text/plain)'),
          ...refusals(404),
        },
      },
    },
    async (req, reply) => {
      if (!(await known(req.params.t))) return reply.code(404).send(refusal('not_found', { what: 'tenant' }));
      const size = await auditSize(deps.db, req.params.t);
      if (req.query.size !== undefined && req.query.size > size) return reply.code(400).send(invalid('size', `the log holds ${size} entries`));
      const cp = await deps.witnesses.note(req.params.t, req.query.size);
      if (wantsNote(req)) return reply.header('content-type', 'text/plain; charset=utf-8').send(cp.note);
      return reply.send({ origin: cp.origin, size: cp.size, root: cp.root, signature: cp.signature, note: cp.note, cosignatures: cp.cosignatures });
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
        response: { ...ok(Answers.proof, 'the proof'), ...refusals(404) },
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

/**
 * `POST …/audit/checkpoint` (admin): a checkpoint note cosigned by witnesses (text/plain). Every
 * cosignature is checked against the configured witness keys before it is kept; the note is
 * answered with every cosignature kept for that checkpoint.
 */
export const auditCosignRoutes = (admin: FastifyInstance, deps: { witnesses: WitnessCommands; db: ReadModelStore }) => {
  void admin.register(async (scope) => {
    scope.addContentTypeParser('text/plain', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_req, body, done) => done(null, String(body)));
    scope.withTypeProvider<ZodTypeProvider>().post(
      '/v1/tenants/:t/audit/checkpoint',
      {
        validatorCompiler: bodyCheckedByHandler,
        schema: {
          params: TenantParams,
          security: [{ admin: [] }],
          tags: ['audit'],
          summary: 'keep witness cosignatures of a checkpoint (text/plain: the cosigned note)',
          consumes: ['text/plain'],
          body: z.string().meta({ description: 'the checkpoint note with the witnesses’ cosignature lines' }),
          response: { ...okAs('text/plain', 'the note with every cosignature kept'), ...refusals(404, 409) },
        },
      },
      async (req, reply) => {
        if (!(await tenantExists(deps.db, req.params.t))) return reply.code(404).send(refusal('not_found', { what: 'tenant' }));
        if (typeof req.body !== 'string')
          return reply.code(415).send(refusal('unsupported_media_type', { reason: 'send the cosigned checkpoint note as text/plain' }));
        const kept = await deps.witnesses.cosign(req.params.t, req.body);
        if (E.isLeft(kept)) return reply.code(statusOf(kept.left)).send(kept.left);
        const cp = await deps.witnesses.note(req.params.t, kept.right.size);
        return reply.header('content-type', 'text/plain; charset=utf-8').send(cp.note);
      },
    );
  });
};
