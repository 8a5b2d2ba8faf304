import { fork } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ADMIN, mintWith, provision, refusalText, type Json, type ServiceKeys } from './api.ts';

/**
 * The service in a child process (`bench/service-process.ts`, same `startService`, database and
 * keys as the in-process bench) and its clients here, with bare `node:http` over keep-alive
 * agents instead of `fetch`: on a 2-core machine the clients' CPU (undici, JSON) would
 * otherwise compete with the service in its own event loop, and its figures would be the
 * clients' as much as its own.
 */
export interface RemoteApi {
  readonly url: string;
  admin(path: string, body: unknown): Promise<Json>;
  mint(): Promise<string>;
  /**
   * Records requests for a phase of `clients` concurrent loops: one keep-alive agent with at
   * most `clients` sockets, closed by `done`. A refusal throws its text (the harness counts it).
   */
  records(clients: number): { recWith(ticket: string, body: Json): Promise<Json>; done(): void };
  /** The child's pool connections publish their statistics (for `PgStats.track`). */
  flush(): Promise<void>;
  /** The child's process CPU time so far, ms (user + system). */
  cpuMs(): Promise<number>;
  close(): Promise<void>;
}

const post = (agent: http.Agent, url: string, token: string, body: unknown) =>
  new Promise<{ status: number; answer: Json }>((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let answer: Json;
        try {
          answer = JSON.parse(text) as Json;
        } catch {
          answer = { unparsed: text.slice(0, 80) };
        }
        resolve({ status: res.statusCode ?? 0, answer });
      });
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });

export const startRemoteApi = async (databaseUrl: string, keys: ServiceKeys): Promise<RemoteApi> => {
  const child = fork(path.join(import.meta.dirname, 'service-process.ts'), [], { execArgv: ['--import', 'tsx'] });
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 0;
  let exited: string | null = null;
  child.on('message', (m: { id: number; value?: unknown; error?: string }) => {
    const p = pending.get(m.id);
    pending.delete(m.id);
    if (m.error !== undefined) p?.reject(new Error(`service process: ${m.error}`));
    else p?.resolve(m.value);
  });
  const exit = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exited = `exited (${signal ?? code})`;
      for (const p of pending.values()) p.reject(new Error(`service process ${exited}`));
      pending.clear();
      resolve();
    }),
  );
  const call = <T>(m: Json) =>
    new Promise<T>((resolve, reject) => {
      if (exited) return reject(new Error(`service process ${exited}`));
      const id = nextId++;
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      child.send({ id, ...m });
    });

  let url: string;
  // Admin requests (provisioning, mints) never share the measured clients' sockets.
  const adminAgent = new http.Agent({ keepAlive: true });
  const admin = async (p: string, body: unknown) => {
    const { status, answer } = await post(adminAgent, `${url}${p}`, ADMIN, body);
    if (status >= 300) throw new Error(refusalText(`POST ${p.replace(/\/calls$/, '/calls (mint)')}`, status, answer));
    return answer;
  };
  try {
    url = await call<string>({
      op: 'start',
      databaseUrl,
      masterKey: keys.masterKey.toString('base64'),
      auditKey: keys.auditKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    });
    await provision(admin);
  } catch (error) {
    adminAgent.destroy();
    child.kill('SIGKILL');
    await exit;
    throw error;
  }
  return {
    url,
    admin,
    mint: () => mintWith(admin),
    records(clients) {
      const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
      return {
        async recWith(ticket, body) {
          const { status, answer } = await post(agent, `${url}/v1/records`, ticket, body);
          if (status !== 200) throw new Error(refusalText(String(body.op), status, answer));
          return answer;
        },
        done: () => agent.destroy(),
      };
    },
    flush: () => call<null>({ op: 'flush' }).then(() => undefined),
    cpuMs: () => call<number>({ op: 'cpu' }),
    async close() {
      adminAgent.destroy();
      if (!exited) await call({ op: 'close' });
      // The child leaves once its service is closed; one that lingers is ended here.
      if ((await Promise.race([exit.then(() => true), sleep(10_000).then(() => false)])) === false) {
        console.log('  !! the records service process did not exit 10 s after closing: killed');
        child.kill('SIGKILL');
        await exit;
      }
    },
  };
};
