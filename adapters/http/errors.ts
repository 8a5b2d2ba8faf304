import { TamperedLog } from '../../domain/ports/event-store.ts';
import { statusOf } from './status.ts';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { refusal, type Refusal } from '../../domain/shared/refusal.ts';
import { isAgentPath, withMessage } from './refusal-messages.ts';
import { refusalOfIssue, type SchemaIssue } from './schema-refusal.ts';
import { DATABASE_UNAVAILABLE, isDatabaseUnavailable } from './database-unavailable.ts';

interface ValidationItem {
  keyword?: string;
  instancePath?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** Where a schema error came from: the schema and the data it was checked against. */
export interface ValidationSource {
  readonly schema?: Partial<Record<string, unknown>>;
  readonly data?: Partial<Record<string, unknown>>;
}

/** A validation item (fastify-type-provider-zod's form) as the zod issue it was made from. */
const issueOf = (item: ValidationItem): SchemaIssue => ({
  ...(item.params ?? {}),
  code: item.keyword ?? 'custom',
  path: (item.instancePath ?? '').split('/').filter(Boolean),
  message: item.message ?? 'invalid',
});

/**
 * Turns whatever fastify or the schema layer threw into a refusal body. Anything we did
 * not foresee is still answered as JSON; only a true server fault becomes a 500.
 */
export const refusalOfError = (error: FastifyError & { refusal?: Refusal }, source: ValidationSource = {}): { status: number; body: Refusal } => {
  if (error.refusal) return { status: error.statusCode ?? 400, body: error.refusal };
  // The log did not verify where a fold met it: a refusal to act, never a guess (nor a bare 500).
  if ((error as unknown) instanceof TamperedLog) {
    const { stream, revision, reason } = (error as unknown as TamperedLog).detail;
    return { status: statusOf({ error: 'tampered' }), body: { error: 'tampered', stream, revision, reason } };
  }
  if (hasZodFastifySchemaValidationErrors(error)) {
    const first = (error.validation[0] ?? {}) as ValidationItem;
    // `settings.caps.records` in a body; `querystring.limit` outside it.
    const context = error.validationContext;
    const root = context === 'body' || context === undefined ? [] : [context];
    const key = context ?? 'body';
    return { status: 400, body: refusalOfIssue(issueOf(first), source.schema?.[key], source.data?.[key], root) };
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
  // The database went away (stopped, restarting, unreachable): nothing is wrong with the request.
  if (isDatabaseUnavailable(error)) return { status: 503, body: { ...DATABASE_UNAVAILABLE } };
  return { status: 500, body: { error: 'internal' } };
};

/**
 * Fastify's own refusals that never reach the error handler (a path segment that does not
 * percent-decode to valid UTF-8, a path parameter too long), answered in our JSON shape.
 */
export const answerFrameworkError = (error: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
  if ((error.statusCode ?? 500) >= 500) {
    req.log.error({ err: error }, 'request failed');
    return reply.code(500).send(withMessage({ error: 'internal' }));
  }
  const reason =
    error.code === 'FST_ERR_BAD_URL'
      ? 'the path does not percent-decode to valid UTF-8'
      : error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? 'a path segment is too long'
        : error.message;
  return reply.code(400).send(withMessage(refusal('invalid', { field: 'path', reason }), isAgentPath(req.url)));
};
