import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { getJob } from '../../../queries/jobs.ts';
import type { HttpDeps } from '../deps.ts';
import { answer } from '../reply.ts';
import { CallParams, EmptyBody, JobParams, MintCallBody, StartJobBody, TenantParams } from '../schemas.ts';
import { Answers, ok, refusals } from '../responses.ts';

const security = [{ admin: [] }];

export const jobRoutes = (app: FastifyInstance, deps: HttpDeps) => {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.post(
    '/v1/tenants/:t/jobs',
    {
      schema: {
        params: TenantParams,
        body: StartJobBody,
        security,
        tags: ['runtime'],
        summary: 'starts a job and its authority envelope',
        response: {
          ...ok(Answers.jobStarted, 'a retried start that changed nothing'),
          ...ok(Answers.jobStarted, 'the job started', 201),
          ...refusals(403, 404, 409),
        },
      },
    },
    async (req, reply) => {
      const { id, ...request } = req.body;
      return answer(
        reply,
        deps.runner,
        await deps.jobs.start(req.params.t, id, request, { correlationId: req.id }),
        (v) => ({ job: v.job, envelope: v.envelope }),
        // A retried start that changed nothing answers 200, a new job (or run) 201.
        (v) => (v.position === null ? 200 : 201),
      );
    },
  );

  r.get(
    '/v1/tenants/:t/jobs/:id',
    { schema: { params: JobParams, security, tags: ['runtime'], summary: 'reads a job', response: { ...ok(Answers.job, 'the job'), ...refusals(404) } } },
    async (req, reply) => {
      const job = await getJob(deps.db, req.params.t, req.params.id);
      return job ? reply.send({ job }) : reply.code(404).send({ error: 'not_found', what: 'job' });
    },
  );

  r.post(
    '/v1/tenants/:t/jobs/:id/calls',
    {
      schema: {
        params: JobParams,
        body: MintCallBody,
        security,
        tags: ['runtime'],
        summary: "mints a call of one of the job's functions, with its ticket",
        response: { ...ok(Answers.call, 'the call and the _meta the tool is called with', 201), ...refusals(403, 404, 409) },
      },
    },
    async (req, reply) => {
      const { t, id } = req.params;
      const result = await deps.jobs.mintCall(t, id, req.body.function, { step: req.body.step, startup: req.body.startup }, { correlationId: req.id });
      return answer(
        reply,
        deps.runner,
        result,
        (c) => ({
          call: { id: c.call, step: c.step, function: c.function, startup: c.startup },
          _meta: {
            'oz0/records': { url: `${deps.publicUrl()}/v1/records`, ticket: c.ticket, agent: c.agent },
            'oz0/idempotency_key': c.idempotency_key,
          },
        }),
        201,
      );
    },
  );

  r.post(
    '/v1/tenants/:t/jobs/:id/calls/:call/end',
    {
      schema: {
        params: CallParams,
        body: EmptyBody,
        security,
        tags: ['runtime'],
        summary: 'ends a call; its ticket dies',
        response: { ...ok(Answers.callEnded, 'the call, ended'), ...refusals(404, 409) },
      },
    },
    async (req, reply) =>
      answer(reply, deps.runner, await deps.jobs.endCall(req.params.t, req.params.id, req.params.call, { correlationId: req.id }), (v) => ({ call: v.call })),
  );

  r.post(
    '/v1/tenants/:t/jobs/:id/end',
    {
      schema: {
        params: JobParams,
        body: EmptyBody,
        security,
        tags: ['runtime'],
        summary: 'ends a job',
        response: { ...ok(Answers.job, 'the job, ended'), ...refusals(404, 409) },
      },
    },
    async (req, reply) => answer(reply, deps.runner, await deps.jobs.end(req.params.t, req.params.id, { correlationId: req.id }), (v) => ({ job: v.job })),
  );
};
