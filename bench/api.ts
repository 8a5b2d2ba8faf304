import { randomBytes, type KeyObject } from 'node:crypto';
import { startService, type Service } from '../adapters/service.ts';
import { newAuditKey } from '../adapters/keys/audit-key.ts';
import { serviceErrors } from './service-errors.ts';

export const ADMIN = 'bench-admin-key';

/** The keys a service needs to come back on the same database (a restart). */
export interface ServiceKeys {
  readonly masterKey: Buffer;
  readonly auditKey: KeyObject;
}
export const newServiceKeys = (): ServiceKeys => ({ masterKey: randomBytes(32), auditKey: newAuditKey() });

export type Json = Record<string, unknown>;

/** A refusal as one short line to count by: status and body without the constant job_purpose. */
export const refusalText = (what: string, status: number, answer: Json) => {
  const { job_purpose: _purpose, ...rest } = answer;
  return `${what} → ${status} ${JSON.stringify(rest).slice(0, 120)}`;
};

export interface Api {
  readonly svc: Service;
  admin(path: string, body: unknown): Promise<Json>;
  /** A records request from `client`, who mints a new call when its ticket is spent (64 requests) or refused. */
  rec(client: number, body: Json): Promise<Json>;
  mint(): Promise<string>;
  /** A records request with a given ticket. */
  recWith(ticket: string, body: Json): Promise<Json>;
  close(): Promise<void>;
}

export interface BenchJob {
  readonly tenant: string;
  readonly plugin: string;
  readonly job: string;
}
export const JOB: BenchJob = { tenant: 'bench', plugin: 'notes', job: 'bench-job' };

/** The bench's tenant, plugin and job (or another `job`'s), made through the admin API. */
export const provision = async (admin: (path: string, body: unknown) => Promise<Json>, job: BenchJob = JOB) => {
  await admin('/v1/tenants', { id: job.tenant, settings: { caps: { records: 20_000, bytes: 1 << 30 } } });
  await admin(`/v1/tenants/${job.tenant}/plugins`, { name: job.plugin, functions: ['save'], agents: ['scribe'] });
  await admin(`/v1/tenants/${job.tenant}/jobs`, {
    id: job.job,
    agent: 'scribe',
    plugin: JOB.plugin,
    subject: 'bench',
    input: 'bench',
    timeout_ms: 86_400_000,
  });
};

/** A new call on the bench's job (or `job`): its records ticket. */
export const mintWith = async (admin: (path: string, body: unknown) => Promise<Json>, job: BenchJob = JOB) => {
  const minted = (await admin(`/v1/tenants/${job.tenant}/jobs/${job.job}/calls`, { function: 'save' })) as { _meta: { 'oz0/records': { ticket: string } } };
  return minted._meta['oz0/records'].ticket;
};

/**
 * The service in this process on `databaseUrl`, with one tenant, plugin and job (made unless
 * `existing`). Every failed request throws an Error whose message is the refusal, so the
 * harness counts failures by kind.
 */
export const startApi = async (databaseUrl: string, keys: ServiceKeys, existing = false): Promise<Api> => {
  const errors = serviceErrors(new URL(databaseUrl).pathname.slice(1));
  const svc = await startService({ databaseUrl, adminKey: ADMIN, masterKey: keys.masterKey, auditKey: keys.auditKey, port: 0, logger: errors.logger });
  const admin = async (path: string, body: unknown) => {
    const res = await fetch(`${svc.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const answer = (await res.json()) as Json;
    if (res.status >= 300) throw new Error(refusalText(`POST ${path.replace(/\/calls$/, '/calls (mint)')}`, res.status, answer));
    return answer;
  };
  if (!existing) await provision(admin);
  const mint = () => mintWith(admin);
  const recWith = async (ticket: string, body: Json) => {
    const res = await fetch(`${svc.url}/v1/records`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ticket}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const answer = (await res.json()) as Json;
    if (res.status !== 200) throw new Error(refusalText(String(body.op), res.status, answer));
    return answer;
  };
  const tickets = new Map<number, { ticket: string; used: number }>();
  const rec = async (client: number, body: Json) => {
    let t = tickets.get(client);
    if (!t || t.used >= 64) {
      t = { ticket: await mint(), used: 0 };
      tickets.set(client, t);
    }
    t.used++;
    try {
      return await recWith(t.ticket, body);
    } catch (error) {
      // A refused ticket is not retried: the next request mints a new call.
      tickets.delete(client);
      throw error;
    }
  };
  return {
    svc,
    admin,
    rec,
    mint,
    recWith,
    async close() {
      await svc.close();
      errors.summary();
    },
  };
};
