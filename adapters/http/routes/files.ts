import { Readable } from 'node:stream';
import type { bodyGate } from '../body-gate.ts';
import type { FastifyInstance, FastifyReply } from 'fastify';
import * as E from 'fp-ts/lib/Either.js';
import type { RecordsService } from '../../../commands/records-service.ts';
import type { FileCommands } from '../../../commands/files.ts';
import { MAX_FILE_BYTES } from '../../../domain/files/ref.ts';
import { refusal, type Refusal } from '../../../domain/shared/refusal.ts';
import { admittedCall, ticketGate } from '../ticket-gate.ts';
import { statusOf } from '../status.ts';
import type { ProjectionRunner } from '../../../projections/runner.ts';
import { Answers, bodyCheckedByHandler, ok, okAs, refusals } from '../responses.ts';
import { z } from 'zod';

export interface FilesDeps {
  readonly service: RecordsService;
  readonly files: FileCommands;
  readonly runner: ProjectionRunner;
  /** Shared with the results route: the large bodies this process holds at once. */
  readonly largeBodies: ReturnType<typeof bodyGate>;
}

/** A call ticket; its raw body errors are answered as they come (no deferred check 3 here). */
export const FILE_TICKET = { auth: 'ticket' } as const;

export const refuse = (reply: FastifyReply, r: Refusal) => reply.code(statusOf(r)).send(r);

/**
 * Files between tools (SPEC §13). The ticket and the fence are checked in `onRequest`, before
 * an upload is read (the records API's own gate, `admit`); the tree comes from the ticket.
 */
export const filesRoutes = (app: FastifyInstance, deps: FilesDeps) => {
  const gate = ticketGate(deps.service);
  const admitted = admittedCall;

  // Raw bytes are taken by the file route alone, in a context of its own, after the gate.
  void app.register(async (scope) => {
    scope.addContentTypeParser('application/octet-stream', { parseAs: 'buffer', bodyLimit: MAX_FILE_BYTES }, (_req, body, done) => done(null, body));
    scope.put(
      '/v1/files',
      {
        config: FILE_TICKET,
        bodyLimit: MAX_FILE_BYTES,
        onRequest: gate,
        preParsing: deps.largeBodies.preParsing,
        onResponse: deps.largeBodies.done,
        onRequestAbort: deps.largeBodies.done,
        validatorCompiler: bodyCheckedByHandler,
        schema: {
          tags: ['files'],
          summary: 'store a file of the job tree (raw bytes, ≤ 32 MiB)',
          security: [{ ticket: [] }],
          consumes: ['application/octet-stream'],
          body: z.string().meta({ format: 'binary', description: 'the bytes of the file' }),
          response: { ...ok(Answers.file, 'the file ref and its size'), ...refusals(403, 404, 409, 429) },
        },
      },
      async (req, reply) => {
        const a = admitted(req);
        if (!a) return refuse(reply, refusal('ticket'));
        if (!Buffer.isBuffer(req.body)) return refuse(reply, refusal('unsupported_media_type', { reason: 'send the file as application/octet-stream' }));
        const stored = await deps.files.put(a.ctx, req.body, req.id);
        if (E.isLeft(stored)) return refuse(reply, stored.left);
        if (stored.right.position !== null) await deps.runner.waitFor(stored.right.position);
        return reply.code(200).send({ ref: stored.right.ref, size: stored.right.size });
      },
    );
  });

  app.get<{ Params: { ref: string } }>(
    '/v1/files/:ref',
    {
      config: FILE_TICKET,
      onRequest: gate,
      schema: {
        tags: ['files'],
        summary: 'read a file of the job tree',
        security: [{ ticket: [] }],
        params: z.strictObject({ ref: z.string() }),
        response: { ...okAs('application/octet-stream', 'the bytes', z.string().meta({ format: 'binary' })), ...refusals(403, 404, 429) },
      },
    },
    async (req, reply) => {
      const a = admitted(req);
      if (!a) return refuse(reply, refusal('ticket'));
      const opened = await deps.files.open(a.ctx, req.params.ref);
      if (E.isLeft(opened)) return refuse(reply, opened.left);
      if (opened.right.joined !== null) await deps.runner.waitFor(opened.right.joined);
      return reply
        .code(200)
        .header('content-type', 'application/octet-stream')
        .header('content-length', String(opened.right.size))
        .send(Readable.from(opened.right.chunks()));
    },
  );
};
