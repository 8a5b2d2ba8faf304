import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CAP, CAP_CHARS } from '../../../clients/typescript/src/fit/bounds.ts';
import { PLUGIN_NAME } from '../../../domain/shared/names.ts';
import type { HttpDeps } from '../deps.ts';
import { answer } from '../reply.ts';
import { JobParams } from '../schemas.ts';
import { Answers, ok, refusals } from '../responses.ts';

const security = [{ admin: [] }];

/** What the agent's start-up tokens leave after its skills index; never more than a fitted answer's CAP. */
export const StartupBody = z.strictObject({ budget: z.number().int().min(0).max(CAP) });

const Entry = z.strictObject({ text: z.string().max(CAP_CHARS) });
export const StartupTextBody = z.strictObject({
  answers: z
    .array(
      z.strictObject({
        plugin: z.string().regex(PLUGIN_NAME, 'a plugin name'),
        entries: z.array(Entry).max(1000).optional(),
        text: z.string().max(CAP_CHARS).optional(),
        error: z.string().max(2000).optional(),
      }),
    )
    .max(16),
});

/** SPEC §4 "Start-up text": the runtime asks which plugins add text, then posts what they answered. */
export const startupRoutes = (app: FastifyInstance, deps: HttpDeps) => {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.post(
    '/v1/tenants/:t/jobs/:id/startup',
    {
      schema: {
        params: JobParams,
        body: StartupBody,
        security,
        tags: ['runtime'],
        summary: 'the plugins that add start-up text, each with a start-up call minted',
        response: { ...ok(Answers.startup, 'the plugins and their calls'), ...refusals(403, 404, 409) },
      },
    },
    async (req, reply) =>
      answer(reply, deps.runner, await deps.startup.prepare(req.params.t, req.params.id, req.body.budget, { correlationId: req.id }), (v) => ({
        plugins: v.calls.map((c) => ({
          plugin: c.plugin,
          function: c.function,
          call: c.call,
          _meta: {
            'oz0/records': { url: `${deps.publicUrl()}/v1/records`, ticket: c.ticket, agent: c.agent },
            'oz0/idempotency_key': c.idempotency_key,
          },
        })),
      })),
  );

  r.post(
    '/v1/tenants/:t/jobs/:id/startup/text',
    {
      schema: {
        params: JobParams,
        body: StartupTextBody,
        security,
        tags: ['runtime'],
        summary: "assembles the start-up text from the plugins' answers",
        response: { ...ok(Answers.startupText, 'the text, what was kept and what was left out'), ...refusals(403, 404, 409) },
      },
    },
    async (req, reply) =>
      answer(reply, deps.runner, await deps.startup.assemble(req.params.t, req.params.id, req.body.answers, { correlationId: req.id }), (v) => ({
        text: v.text,
        kept: v.kept,
        left_out: v.left_out,
        tokens: v.tokens,
      })),
  );
};
