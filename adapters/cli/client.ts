import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { dataDirOf } from './data-dir.ts';
import { CliFailure, oneLine } from './failure.ts';

/**
 * The compliance commands talk to a running service over HTTP, so they act through the same
 * commands, keys and audit as every other caller. URL: --url, CUSTODIAN_URL, or
 * http://127.0.0.1:$PORT; admin key: CUSTODIAN_ADMIN_KEY or <data-dir>/secrets/admin-key.
 */
export interface ClientOptions {
  readonly url?: string;
  readonly dataDir?: string;
}

const START_IT = 'start it (custodian start) or point --url (or CUSTODIAN_URL) at the running service';

/**
 * One HTTP exchange with node:http, not fetch: Node 20's fetch can leave its promise unsettled,
 * and the process exiting silently, when the service drops the connection before answering.
 */
const answerOf = (bytes: Buffer) => ({ bytes, text: bytes.toString('utf8') });

const send = (target: URL, method: string, headers: Record<string, string>, body?: string) =>
  new Promise<{ status: number; text: string; bytes: Buffer }>((resolve, reject) => {
    const request = (target.protocol === 'https:' ? https : http).request(target, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('close', () =>
        res.complete
          ? resolve({ status: res.statusCode ?? 0, ...answerOf(Buffer.concat(chunks)) })
          : reject(Object.assign(new Error('the answer was cut off'), { code: 'ECONNRESET' })),
      );
    });
    request.on('error', reject);
    request.end(body);
  });

/** Why the service could not be reached, from the network error's code. */
const unreachable = (url: string, error: unknown): CliFailure => {
  const cause = error as { code?: string; message?: string };
  const code = cause?.code ?? '';
  const why =
    code === 'ECONNREFUSED'
      ? 'nothing is listening there'
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? 'that host name does not resolve'
        : code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE'
          ? 'the connection was closed before an answer came'
          : code === 'ETIMEDOUT'
            ? 'the connection timed out'
            : oneLine(cause?.message ?? String(error), 120);
  return new CliFailure(`cannot reach the service at ${url} (${why}): ${START_IT}`);
};

/** What to do about a refusal, by its status. */
const advice = (status: number): string => {
  if (status === 401 || status === 403) return 'give the admin key: CUSTODIAN_ADMIN_KEY, or --data-dir where the service keeps secrets/admin-key';
  if (status === 404) return 'check the tenant and the id, and that --url is a Custodian service';
  if (status === 503) return "if it persists, check that the service's database is running (its log says why)";
  if (status >= 500) return 'the service failed; its log says why';
  return 'change the request as the message says';
};

/** The refusal's own words: `error`, `field`, `reason` and `message` of a JSON body, else its text. */
const refusalText = (text: string): string => {
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    if (body !== null && typeof body === 'object' && typeof body.error === 'string') {
      const parts = [body.error, body.field, body.reason, body.message].filter((p): p is string => typeof p === 'string' && p !== '');
      // The code always; then a field or reason that the message repeats at its start, once.
      return oneLine(parts.filter((p, i) => i === 0 || !parts.slice(i + 1).some((later) => later.startsWith(p))).join(': '));
    }
  } catch {
    // Not JSON: the text itself, flattened.
  }
  return oneLine(text) || '(no body)';
};

const refused = (method: string, route: string, status: number, text: string) =>
  new CliFailure(`the service refused ${method} ${oneLine(route.split('?')[0] ?? route)} with ${status} ${refusalText(text)}; ${advice(status)}`);

/** A request to the service with the admin key: its answer's bytes; a refusal or an unreachable service throws one line. */
export const clientBytes = (o: ClientOptions) => {
  const url = (o.url ?? process.env.CUSTODIAN_URL ?? `http://127.0.0.1:${process.env.PORT ?? 41873}`).replace(/\/$/, '');
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
    throw new CliFailure(`--url ${oneLine(url, 100)} is not an http(s) URL: give e.g. --url http://127.0.0.1:41873`);
  const keyFile = path.join(dataDirOf(o.dataDir), 'secrets', 'admin-key');
  const key = process.env.CUSTODIAN_ADMIN_KEY ?? (existsSync(keyFile) ? readFileSync(keyFile, 'utf8').trim() : '');
  return async (method: string, route: string, body?: unknown, contentType = 'application/json'): Promise<Buffer> => {
    const headers = { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': contentType }) };
    const answer = await send(new URL(`${url}${route}`), method, headers, body === undefined || typeof body === 'string' ? body : JSON.stringify(body)).catch(
      (error: unknown) => {
        throw unreachable(url, error);
      },
    );
    if (answer.status >= 400) throw refused(method, route, answer.status, answer.text);
    return answer.bytes;
  };
};

/** As `clientBytes`, answering the text. */
export const client = (o: ClientOptions) => {
  const bytes = clientBytes(o);
  return async (method: string, route: string, body?: unknown, contentType = 'application/json'): Promise<string> =>
    (await bytes(method, route, body, contentType)).toString('utf8');
};

/** The JSON of a service answer, or one line saying the answer was not what a Custodian service sends. */
export const parseAnswer = <T>(text: string, what: string): T => {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new CliFailure(`the service's answer to ${what} is not JSON: check that --url is a Custodian service`);
  }
};

export const print = (text: string | null) => {
  if (text !== null) process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
};
