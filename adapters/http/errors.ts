import { TamperedLog } from '../../domain/ports/event-store.ts';
import { statusOf } from './status.ts';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import type { Refusal } from '../../domain/shared/refusal.ts';

interface ValidationItem {
  keyword?: string;
  instancePath?: string;
  message?: string;
  params?: { keys?: readonly string[] };
}

/** `settings.caps.records`, or `query.limit` outside the body; an unknown key names itself. */
const fieldOf = (context: string | undefined, item: ValidationItem): string => {
  const path = (item.instancePath ?? '').split('/').filter(Boolean);
  if (item.keyword === 'unrecognized_keys' && item.params?.keys?.[0]) path.push(item.params.keys[0]);
  const where = context === 'body' || context === undefined ? [] : [context];
  return [...where, ...path].join('.') || context || 'body';
};

const reasonOf = (item: ValidationItem): string => (item.keyword === 'unrecognized_keys' ? 'unknown field' : (item.message ?? 'invalid'));

/**
 * Turns whatever fastify or the schema layer threw into a refusal body. Anything we did
 * not foresee is still answered as JSON; only a true server fault becomes a 500.
 */
export const refusalOfError = (error: FastifyError & { refusal?: Refusal }): { status: number; body: Refusal } => {
  if (error.refusal) return { status: error.statusCode ?? 400, body: error.refusal };
  // The log did not verify where a fold met it: a refusal to act, never a guess (nor a bare 500).
  if ((error as unknown) instanceof TamperedLog) {
    const { stream, revision, reason } = (error as unknown as TamperedLog).detail;
    return { status: statusOf({ error: 'tampered' }), body: { error: 'tampered', stream, revision, reason } };
  }
  if (hasZodFastifySchemaValidationErrors(error)) {
    const first = (error.validation[0] ?? {}) as ValidationItem;
    return { status: 400, body: { error: 'invalid', field: fieldOf(error.validationContext, first), reason: reasonOf(first) } };
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, body: { error: 'invalid', field: 'body', reason: 'body is not valid JSON' } };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, body: { error: 'invalid', field: 'body', reason: 'body size did not match Content-Length' } };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, body: { error: 'too_large', field: 'body', reason: 'body is too large' } };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, body: { error: 'unsupported_media_type', reason: 'send application/json' } };
    default:
      break;
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return { status, body: { error: 'invalid', field: 'request', reason: error.message } };
  return { status: 500, body: { error: 'internal' } };
};

/**
 * Fastify's own refusals that never reach the error handler (a path segment that does not
 * percent-decode to valid UTF-8, a path parameter too long), answered in our JSON shape.
 */
export const answerFrameworkError = (error: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
  if ((error.statusCode ?? 500) >= 500) {
    req.log.error({ err: error }, 'request failed');
    return reply.code(500).send({ error: 'internal' });
  }
  const reason =
    error.code === 'FST_ERR_BAD_URL'
      ? 'the path does not percent-decode to valid UTF-8'
      : error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? 'a path segment is too long'
        : error.message;
  return reply.code(400).send({ error: 'invalid', field: 'path', reason });
};
