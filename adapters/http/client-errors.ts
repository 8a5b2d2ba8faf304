import type { Socket } from 'node:net';
import type { Refusal } from '../../domain/shared/refusal.ts';
import { withMessage } from './refusal-messages.ts';

/**
 * Requests node's HTTP parser cannot read (a malformed request line, a target with bytes a
 * path cannot hold, headers too large) never reach a route; they are still answered with
 * our JSON refusal shape, then the connection is dropped, as node itself does.
 */
export const answerClientError = (error: Error & { code?: string }, socket: Socket) => {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, text, body] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', { error: 'timeout', reason: 'the request took too long to arrive' }]
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', { error: 'too_large', field: 'headers', reason: 'the request headers are too large' }]
        : [400, 'Bad Request', { error: 'invalid', field: 'request', reason: 'not a well-formed HTTP request' }];
  const json = JSON.stringify(withMessage(body as unknown as Refusal));
  if (socket.writable)
    socket.write(
      `HTTP/1.1 ${status} ${text}\r\nContent-Length: ${Buffer.byteLength(json)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${json}`,
    );
  socket.destroy();
};
