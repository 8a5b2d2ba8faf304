import type { IncomingMessage, ServerResponse } from 'node:http';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';

/** Writes a JSON answer from the router itself (never from a cell). */
export const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
};

/** Copies a cell's injected answer to the caller, its body optionally rewritten (JSON only). */
export const sendInjected = (res: ServerResponse, answer: LightMyRequestResponse, rewrite?: (body: Record<string, unknown>) => unknown): void => {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(answer.headers))
    if (value !== undefined && !['content-length', 'transfer-encoding', 'connection', 'keep-alive'].includes(name))
      headers[name] = typeof value === 'number' ? String(value) : value;
  let body: string | Buffer = answer.rawPayload;
  if (rewrite && String(answer.headers['content-type'] ?? '').startsWith('application/json')) body = JSON.stringify(rewrite(answer.json()));
  res.writeHead(answer.statusCode, { ...headers, 'content-length': String(Buffer.byteLength(body)) });
  res.end(body);
};

/** The request's headers as a cell's inject takes them (its own length is computed again). */
export const forwardedHeaders = (req: IncomingMessage): InjectOptions['headers'] => {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers))
    if (value !== undefined && !['content-length', 'transfer-encoding', 'connection'].includes(name)) out[name] = value;
  return out;
};

/** Reads a body up to `limit` bytes; null when it is larger (the rest is not read). */
export const readBody = (req: IncomingMessage, limit: number): Promise<Buffer | null> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        over = true;
        req.pause();
        resolve(null);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!over) resolve(Buffer.concat(chunks));
    });
    req.on('error', reject);
  });
