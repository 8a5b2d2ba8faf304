import http from 'node:http';
import path from 'node:path';
import { forkChild } from './child-ipc.ts';
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

export const post = (agent: http.Agent, url: string, token: string, body: unknown) =>
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
  const child = forkChild(path.join(import.meta.dirname, 'service-process.ts'));
  const call = child.call;

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
    await child.kill();
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
      if (!child.exited()) await call({ op: 'close' });
      await child.stopped('records service');
    },
  };
};
