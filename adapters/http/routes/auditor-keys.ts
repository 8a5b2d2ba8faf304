import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import * as E from 'fp-ts/lib/Either.js';
import { z } from 'zod';
import type { AuditorKeyCommands } from '../../../commands/auditor-keys.ts';
import { TenantParams } from '../schemas.ts';
import { statusOf } from '../status.ts';
import { IssuedKey, ok, refusals } from '../responses.ts';

/** The admin's call: issues an auditor key for one tenant (shown once). Registered inside the admin scope. */
export const auditorKeyRoutes = (app: FastifyInstance, deps: { auditors: AuditorKeyCommands; settle: (position: number) => Promise<boolean> }) => {
  app.withTypeProvider<ZodTypeProvider>().post(
    '/v1/tenants/:t/auditor-keys',
    {
      schema: {
        params: TenantParams,
        // Nothing to say: no body, or {}.
        body: z.strictObject({}).nullish(),
        security: [{ admin: [] }],
        tags: ['admin'],
        summary: "issues an auditor key, shown once: it reads this tenant's audit stream, checkpoints, proofs and receipts, nothing else",
        response: { ...ok(IssuedKey, 'the key (shown once) and its id', 201), ...refusals(404, 409) },
      },
    },
    async (req, reply) => {
      const issued = await deps.auditors.issue(req.params.t);
      if (E.isLeft(issued)) return reply.code(statusOf(issued.left)).send(issued.left);
      if (issued.right.position !== null) await deps.settle(issued.right.position);
      return reply.code(201).send({ key: issued.right.key, id: issued.right.id });
    },
  );
};
