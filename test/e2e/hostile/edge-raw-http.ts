import { connect } from 'node:net';

export interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly json: any;
}

const decodeChunked = (body: Buffer): Buffer => {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = body.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = parseInt(body.subarray(at, eol).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(body.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(parts);
};

const parse = (data: Buffer, method: string): RawAnswer => {
  const split = data.indexOf('\r\n\r\n');
  const head = data
    .subarray(0, split < 0 ? data.length : split)
    .toString('latin1')
    .split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head[0] ?? '')?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of head.slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = split < 0 || method === 'HEAD' ? Buffer.alloc(0) : data.subarray(split + 4);
  if (headers['transfer-encoding'] === 'chunked') body = decodeChunked(body);
  else if (headers['content-length'] !== undefined) body = body.subarray(0, Number(headers['content-length']));
  const text = body.toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status, headers, text, json };
};

/**
 * One request over a bare TCP socket, exactly as spelled: fetch and http.request normalise
 * or validate the target, which is what these tests must not let happen. `lines` are the
 * header lines after the request line; the connection closes after the answer.
 */
export const rawRequest = (base: string, method: string, target: string, lines: string[], body?: string | Buffer): Promise<RawAnswer> => {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const payload = body === undefined ? Buffer.alloc(0) : Buffer.from(body);
    const head = [`${method} ${target} HTTP/1.1`, ...lines, 'Connection: close'];
    if (body !== undefined) head.push(`Content-Length: ${payload.length}`);
    socket.on('connect', () => socket.write(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), payload])));
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => resolve(parse(Buffer.concat(chunks), method)));
  });
};

/**
 * Declares a large upload and writes it in chunks, each only after the previous one was
 * taken, until the server answers or closes. A server that refuses without reading the
 * body answers long before the client could have written it all: `written` says how much
 * went out, and no clock is involved.
 */
export const hostileUpload = (
  base: string,
  target: string,
  lines: string[],
  declared: number,
  chunk = 64 * 1024,
): Promise<{ answer: RawAnswer; written: number }> => {
  const { hostname, port } = new URL(base);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    const data: Buffer[] = [];
    let written = 0;
    let answered = false;
    let closed = false;
    const block = Buffer.alloc(chunk, 0x61);
    const pump = () => {
      if (answered || closed || written >= declared) return;
      const n = Math.min(chunk, declared - written);
      written += n;
      socket.write(n === chunk ? block : block.subarray(0, n), (err) => (err ? undefined : pump()));
    };
    socket.on('connect', () => {
      socket.write(`POST ${target} HTTP/1.1\r\n${[...lines, `Content-Length: ${declared}`].join('\r\n')}\r\n\r\n`, 'latin1');
      pump();
    });
    socket.on('data', (d) => {
      answered = true;
      data.push(d);
      // A whole answer is in: stop, whether or not the server closes (an old server kept it open).
      const all = Buffer.concat(data);
      const split = all.indexOf('\r\n\r\n');
      const length = /content-length: *(\d+)/i.exec(all.subarray(0, Math.max(split, 0)).toString('latin1'))?.[1];
      if (split >= 0 && length !== undefined && all.length - split - 4 >= Number(length)) socket.destroy();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      closed = true;
      resolve({ answer: parse(Buffer.concat(data), 'POST'), written });
    });
  });
};
