import { isUtf8 } from 'node:buffer';
import type { FastifyRequest } from 'fastify';
import { invalid, type Refusal } from '../../domain/shared/refusal.ts';
import { depthExceeds, hygieneRefusal, MAX_DEPTH } from './hygiene.ts';

/**
 * A body the records API must refuse at check 3: the parser cannot answer for it, since
 * the ticket and the request count come first, so it hands the refusal on as the body.
 */
export class BadBody {
  constructor(readonly refusal: Refusal) {}
}

/** An error carrying its refusal, answered as is by the error handler. */
export const refusalError = (r: Refusal, statusCode = 400) => Object.assign(new Error(String(r.reason ?? r.error)), { statusCode, refusal: r });

/**
 * The JSON body parser: bytes that are not UTF-8 are refused (decoded, each would become
 * U+FFFD, and a record would be stored other than as sent); an empty body is "no body" (for
 * calls that take none); the depth is bounded on the text before anything recurses over it;
 * after parsing, the hygiene walk refuses NUL, lone surrogates and reserved keys, naming the field.
 */
export const parseJsonBody = (req: FastifyRequest, body: Buffer, done: (err: Error | null, body?: unknown) => void) => {
  const refuse = (r: Refusal) => (req.routeOptions.config.deferBodyErrors ? done(null, new BadBody(r)) : done(refusalError(r)));
  if (!isUtf8(body)) return refuse(invalid('body', 'body is not valid UTF-8'));
  const text = body.toString('utf8');
  if (text.trim() === '') return done(null, undefined);
  if (depthExceeds(text)) return refuse(invalid('body', `nested deeper than ${MAX_DEPTH}`));
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return refuse(invalid('body', 'body is not valid JSON'));
  }
  const bad = hygieneRefusal(value, '');
  return bad ? refuse(bad) : done(null, value);
};
