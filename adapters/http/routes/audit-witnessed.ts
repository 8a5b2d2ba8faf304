import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { WitnessCommands } from '../../../commands/audit-witnesses.ts';
import type { ReadModelStore } from '../../../domain/ports/read-model.ts';
import { refusal } from '../../../domain/shared/refusal.ts';
import { tenantExists } from '../../../queries/tenants.ts';
import { AUDITOR } from '../route-auth.ts';
import { okAs, refusals } from '../responses.ts';
import { TenantParams } from '../schemas.ts';

/**
 * `GET …/audit/checkpoint/witnessed`: the newest checkpoint the witness quorum cosigned, as the
 * signed note with their cosignatures (what a reader who trusts the witnesses should start
 * from); 404 while none has reached the quorum. Read-only and tenant-bound, as the other audit reads.
 */
export const auditWitnessedRoutes = (app: FastifyInstance, deps: { witnesses: WitnessCommands; db: ReadModelStore }) => {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/v1/tenants/:t/audit/checkpoint/witnessed',
    {
      config: AUDITOR,
      schema: {
        params: TenantParams,
        security: [{ admin: [] }, { auditor: [] }],
        tags: ['audit'],
        summary: 'the newest checkpoint the witness quorum cosigned: the signed note with their cosignatures',
        response: { ...okAs('text/plain', 'the signed note'), ...refusals(404) },
      },
    },
    async (req, reply) => {
      if (!(await tenantExists(deps.db, req.params.t))) return reply.code(404).send(refusal('not_found', { what: 'tenant' }));
      const cp = await deps.witnesses.newestWitnessed(req.params.t);
      if (!cp)
        return reply.code(404).send(
          refusal('not_found', {
            what: 'witnessed checkpoint',
            reason: 'no checkpoint of this log has been cosigned by the witness quorum yet: GET …/audit/checkpoint serves the newest the log signed',
          }),
        );
      return reply.header('content-type', 'text/plain; charset=utf-8').send(cp.note);
    },
  );
};
