import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { dataDirOf } from './database.ts';

/**
 * The compliance commands talk to a running service over HTTP, so they act through the same
 * commands, keys and audit as every other caller. URL: --url, CUSTODIAN_URL, or
 * http://127.0.0.1:$PORT; admin key: CUSTODIAN_ADMIN_KEY or <data-dir>/secrets/admin-key.
 */
export interface ClientOptions {
  readonly url?: string;
  readonly dataDir?: string;
}

export const client = (o: ClientOptions) => {
  const url = (o.url ?? process.env.CUSTODIAN_URL ?? `http://127.0.0.1:${process.env.PORT ?? 41873}`).replace(/\/$/, '');
  const keyFile = path.join(dataDirOf(o.dataDir), 'secrets', 'admin-key');
  const key = process.env.CUSTODIAN_ADMIN_KEY ?? (existsSync(keyFile) ? readFileSync(keyFile, 'utf8').trim() : '');
  return async (method: string, route: string, body?: unknown, contentType = 'application/json') => {
    const res = await fetch(`${url}${route}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': contentType }) },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await res.text();
    if (res.status >= 400) {
      process.stderr.write(`custodian: ${method} ${route} answered ${res.status}: ${text}\n`);
      process.exitCode = 1;
      return null;
    }
    return text;
  };
};

export const print = (text: string | null) => {
  if (text !== null) process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
};
