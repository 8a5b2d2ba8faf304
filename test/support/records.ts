import { expect } from 'vitest';
import type { TestService } from './service.ts';

export interface Caller {
  readonly ticket: string;
  readonly call: string;
  readonly job: string;
  readonly idempotencyKey: string;
  /** POST /v1/records with this call's ticket. */
  rec(body: unknown): Promise<{ status: number; body: any }>;
}

let jobs = 0;

/** Starts a job (or reuses `job`) and mints a call of `fn`; answers a caller holding its ticket. */
export const caller = async (
  svc: TestService,
  tenant: string,
  opts: {
    start?: Record<string, unknown>;
    job?: string;
    agent?: string;
    plugin?: string;
    fn?: string;
    input?: unknown;
    purpose?: string;
    data_subject?: string;
    labels?: string[];
    step?: number;
    startup?: boolean;
  } = {},
): Promise<Caller> => {
  const job = opts.job ?? `job-${++jobs}-${Date.now()}`;
  const start = {
    id: job,
    agent: opts.agent ?? 'scribe',
    plugin: opts.plugin ?? 'notes',
    subject: 's',
    ...(opts.purpose !== undefined ? { purpose: opts.purpose } : { input: opts.input ?? 'default input' }),
    ...(opts.data_subject ? { data_subject: opts.data_subject } : {}),
    ...(opts.labels ? { labels: opts.labels } : {}),
    ...opts.start,
  };
  // A start answered 503 `unavailable` (its models behind the log on a loaded machine) is
  // recorded: the same start again is what the errors reference tells a client to send.
  let started = await svc.admin('POST', `/v1/tenants/${tenant}/jobs`, start);
  for (let again = 0; again < 5 && started.status === 503 && started.body?.error === 'unavailable'; again++)
    started = await svc.admin('POST', `/v1/tenants/${tenant}/jobs`, start);
  if (started.status >= 300) throw new Error(`job start: ${JSON.stringify(started.body)}`);
  const mint = {
    function: opts.fn ?? 'save',
    ...(opts.step ? { step: opts.step } : {}),
    ...(opts.startup ? { startup: true } : {}),
  };
  // A mint answered 503 `unavailable` likewise: the call is recorded but its ticket not given;
  // the mint sent again answers a call of the job (a step sent again keeps its idempotency key).
  let minted = await svc.admin('POST', `/v1/tenants/${tenant}/jobs/${job}/calls`, mint);
  for (let again = 0; again < 5 && minted.status === 503 && minted.body?.error === 'unavailable'; again++)
    minted = await svc.admin('POST', `/v1/tenants/${tenant}/jobs/${job}/calls`, mint);
  if (minted.status !== 201) throw new Error(`mint: ${JSON.stringify(minted.body)}`);
  const ticket: string = minted.body._meta['oz0/records'].ticket;
  return {
    ticket,
    call: minted.body.call.id,
    job,
    idempotencyKey: minted.body._meta['oz0/idempotency_key'],
    rec: (body) => records(svc, ticket, body),
  };
};

export const records = async (svc: TestService, ticket: string, body: unknown) => {
  const res = await fetch(`${svc.url}/v1/records`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ticket}`, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
};

/**
 * Two requests on `svc` with the caller's ticket: from the third on, that instance admits the
 * ticket from its call-context cache. A get of a key no one writes shows nothing, so it joins no labels.
 */
export const warm = async (svc: TestService, c: Caller) => {
  for (let i = 0; i < 2; i++) expect((await records(svc, c.ticket, { op: 'get', scope: 'project:warm', record_key: 'none' })).status).toBe(200);
};
