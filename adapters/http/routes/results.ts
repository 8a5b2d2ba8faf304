import type { FastifyInstance } from 'fastify';
import * as E from 'fp-ts/lib/Either.js';
import { z } from 'zod';
import type { RecordsService } from '../../../commands/records-service.ts';
import type { ResultCommands } from '../../../commands/results.ts';
import { VIEWS } from '../../../clients/typescript/src/fit/types.ts';
import { MAX_FILE_BYTES } from '../../../domain/files/ref.ts';
import { refusal, type Refusal } from '../../../domain/shared/refusal.ts';
import type { ProjectionRunner } from '../../../projections/runner.ts';
import type { bodyGate } from '../body-gate.ts';
import { JsonBudget } from '../fit-params.ts';
import { JSON_VALUE_REF } from '../json-value.ts';
import { FILE_TICKET, refuse } from './files.ts';
import { admittedCall, ticketGate } from '../ticket-gate.ts';
import { Answers, bodyCheckedByHandler, ok, refusals } from '../responses.ts';
import { refusalOfIssue, type SchemaIssue } from '../schema-refusal.ts';

export interface ResultsDeps {
  readonly service: RecordsService;
  readonly results: ResultCommands;
  readonly runner: ProjectionRunner;
  /** Shared with the files route: the large bodies this process holds at once. */
  readonly largeBodies: ReturnType<typeof bodyGate>;
}

const OffloadBody = z.strictObject({
  tool: z.string().min(1).max(200),
  content: z.unknown().meta({ ...JSON_VALUE_REF, description: 'the result: text or any JSON' }),
});
const ReadBody = z.strictObject({
  ref: z.string().max(200),
  view: z.enum(VIEWS as [string, ...string[]]).optional(),
  section: z.string().min(1).max(1000).optional(),
  range: z
    .string()
    .regex(/^\d{1,9}-\d{1,9}$/, 'a line range such as 120-180')
    .optional(),
  query: z.string().min(1).max(1000).optional(),
  budget: JsonBudget.optional(),
});

const invalidOf = (error: z.ZodError, schema: z.ZodType, body: unknown): Refusal => refusalOfIssue(error.issues[0]! as SchemaIssue, schema, body);

/** Offloading results (SPEC §13), behind the records API's ticket gate. */
export const resultsRoutes = (app: FastifyInstance, deps: ResultsDeps) => {
  const gate = ticketGate(deps.service);
  const large = deps.largeBodies;

  app.post(
    '/v1/results',
    // A result of up to 31 MiB as UTF-8 JSON is taken, so the body may be a little bigger.
    {
      config: FILE_TICKET,
      bodyLimit: MAX_FILE_BYTES,
      onRequest: gate,
      preParsing: large.preParsing,
      onResponse: large.done,
      onRequestAbort: large.done,
      validatorCompiler: bodyCheckedByHandler,
      schema: {
        tags: ['files'],
        summary: 'offload a tool result over the threshold',
        security: [{ ticket: [] }],
        body: OffloadBody,
        response: { ...ok(Answers.offloaded, 'the offloaded result'), ...refusals(403, 404, 409, 429) },
      },
    },
    async (req, reply) => {
      const a = admittedCall(req);
      if (!a) return refuse(reply, refusal('ticket'));
      const body = OffloadBody.safeParse(req.body);
      if (!body.success) return refuse(reply, invalidOf(body.error, OffloadBody, req.body));
      if (!('content' in body.data)) return refuse(reply, refusal('invalid', { field: 'content', reason: 'content is a string or any JSON' }));
      const result = await deps.results.offload(a.ctx, body.data.tool, body.data.content, req.id);
      if (E.isLeft(result)) return refuse(reply, result.left);
      const { position, ...answer } = result.right;
      if (position !== null) await deps.runner.waitFor(position);
      return reply.code(200).send(answer);
    },
  );

  app.post(
    '/v1/results/read',
    {
      config: FILE_TICKET,
      onRequest: gate,
      validatorCompiler: bodyCheckedByHandler,
      schema: {
        tags: ['files'],
        summary: 'read part of an offloaded result, fitted',
        security: [{ ticket: [] }],
        body: ReadBody,
        response: { ...ok(Answers.resultRead, 'the part asked for'), ...refusals(403, 404, 409, 429) },
      },
    },
    async (req, reply) => {
      const a = admittedCall(req);
      if (!a) return refuse(reply, refusal('ticket'));
      const body = ReadBody.safeParse(req.body);
      if (!body.success) return refuse(reply, invalidOf(body.error, ReadBody, req.body));
      const { view, ...rest } = body.data;
      const result = await deps.results.read(a.ctx, { ...rest, ...(view ? { view: view as (typeof VIEWS)[number] } : {}) });
      if (E.isLeft(result)) return refuse(reply, result.left);
      const { joined, ...answer } = result.right;
      // Joined labels must be on the job before this call's next request is checked.
      if (joined !== null) await deps.runner.waitFor(joined);
      return reply.code(200).send(answer);
    },
  );
};
