import { addressedMessage } from '../../domain/collections/refusals.ts';
import type { Refusal, RefusalCode } from '../../domain/shared/refusal.ts';
import type { Surface } from '../../domain/shared/surface.ts';

/**
 * The one place a refusal code gets its `message`: one sentence, what is wrong and what to
 * change. Exhaustive by type (a new code does not compile until it has one). A refusal that
 * already carries a message (the agent API's own, a schema error that names the allowed
 * fields) keeps it; every other answer gets its code's sentence here, built from the fields
 * the refusal already carries (`field`, `reason`, `limit`, …), at the edge's last step, so no
 * route can answer without one.
 */
type Fields = Readonly<Record<string, unknown>>;
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
/** The refusal's own `reason` (it says what to change), or the code's fallback sentence. */
const why = (r: Fields, fallback: string) => str(r.reason) ?? fallback;

const notFound = (r: Fields): string => {
  const what = str(r.what);
  if (what === 'route')
    return `no route ${str(r.method) ?? ''} ${str(r.path) ?? ''}: check the method and path against /openapi.json (browsable at /docs)`.replace(/ {2,}/g, ' ');
  if (what === 'tenant') return 'no such tenant: check the tenant id in the path (POST /v1/tenants creates one)';
  if (what) return `no such ${what}${str(r.ref) ? ` (${str(r.ref)})` : ''}: check the id you sent`;
  return 'nothing is stored here: check the path or id';
};

export const MESSAGES: Readonly<Record<RefusalCode, (r: Fields) => string>> = {
  invalid: (r) => {
    const field = str(r.field);
    const reason = why(r, 'the request was not accepted: check it against the reference at /docs');
    return field && !reason.startsWith(field) ? `${field}: ${reason}` : reason;
  },
  unsupported_media_type: (r) => `this media type is not accepted: ${why(r, 'send application/json')}`,
  too_large: (r) => {
    const limit = num(r.limit);
    const what = str(r.field) ?? 'body';
    return `the ${what} is too large${limit === undefined ? '' : ` (at most ${limit} bytes)`}: ${str(r.reason) && r.reason !== 'body is too large' ? `${r.reason as string}; ` : ''}send less`;
  },
  not_found: notFound,
  already_exists: (r) => {
    const what = str(r.what) ?? (r.tenant !== undefined ? `tenant ${String(r.tenant)}` : r.job !== undefined ? 'job' : 'it');
    return `${what} already exists: ${why(r, 'use another id, or read the one that exists')}`;
  },
  unauthorized: (r) => why(r, 'the credential was not accepted: send the key this route takes as Authorization: Bearer <key>'),
  ticket: () =>
    'this route takes the call ticket of a live call (from _meta["oz0/records"].ticket), not the admin key or an agent key: send Authorization: Bearer <ticket>',
  revoked: (r) => `the authority this call ran under was revoked${str(r.reason) ? ` (${r.reason as string})` : ''}: the job is stopped; start a new job`,
  scope: (r) =>
    `${why(r, 'this scope is not open to this call')}: use the agent's own scope agent:<agent>, or a scope kind the plugin declares (tenant, project:<name>)`,
  purpose: () => 'this record was written for another job purpose: a record is written again only by a job of the purpose it was written for',
  person_off: (r) => why(r, 'memory about people is off for this agent and purpose: the tenant must turn it on in its person_memory setting'),
  person_scope: (r) => why(r, "records about people go in the agent's own scope: write there, or have the tenant share this scope"),
  job_not_running: (r) => `the ${str(r.what) ?? 'job'} is not running${str(r.status) ? ` (${r.status as string})` : ''}: start a new job`,
  widening_refused: (r) =>
    `${str(r.field) ? `${r.field as string}: ` : ''}${why(r, 'a child job cannot widen its parent')}: ask for no more than the parent holds`,
  envelope_invalid: (r) =>
    `the job's envelope is not valid${str(r.what) ? ` (${r.what as string})` : ''}${str(r.reason) ? `: ${r.reason as string}` : ''}: start a new job`,
  label_wall: (r) => `${why(r, 'a job never holds both labels of a wall')}: start a separate job for the other side`,
  tampered: (r) =>
    `the log does not verify${str(r.stream) ? ` at ${r.stream as string}` : ''}${str(r.reason) ? ` (${r.reason as string})` : ''}: nothing was done; an operator must restore the log from a verified copy`,
  closed: () => "a record's first version cannot be closed: write it open, then close it with a later version",
  ends_at: (r) => {
    const days = num(r.max_days);
    return `ends_at must be after now and at most ${days === undefined ? "the tenant's maximum" : `${days} days`} from now: send an earlier end, or none for the default`;
  },
  stale: (r) => {
    const current = num(r.current);
    return `expect does not match the record's newest version${current === undefined ? '' : ` (${current})`}: read the record again and send expect ${current ?? 'as its version'}`;
  },
  duplicate: (r) =>
    r.withheld === true
      ? 'a record with the same dedupe text exists but this call may not see it: use another dedupe text'
      : `a live record of this scope already has this dedupe text${str(r.key) ? ` (${r.key as string}, version ${String(r.version)})` : ''}: write that record instead, or use another dedupe text`,
  full: (r) =>
    `the ${str(r.cap) ?? 'records'} cap of this scope is reached${num(r.limit) === undefined ? '' : ` (${String(r.limit)})`}: remove or end records first, or ask the tenant for a higher cap`,
  held: (r) => why(r, 'a legal hold keeps what this would change: try again once the hold is released'),
  not_empty: (r) =>
    `${why(r, 'there is data here')}: create a new tenant (POST /v1/tenants) and import into it; to delete this tenant's data for good, remove the tenant (DELETE /v1/tenants/{t}: its keys are shredded and its id is retired)`,
  removed: (r) => `${why(r, 'this tenant was removed')}: its id is not used again; create a tenant under another id (its audit log stays readable)`,
  requests: (r) => `this call made its ${num(r.limit) ?? 64} requests: mint a new call for the step to make more`,
  result_too_large: (r) =>
    `the result is too large${num(r.limit) === undefined ? '' : ` (at most ${String(r.limit)} bytes)`}: return less, or hand it over as files`,
  files_held: (r) => `${why(r, 'files are still held here')}: release or remove them first`,
  withheld: () => 'this is on the far side of a label wall from what the call already read: read it from a separate job',
  forgotten: () => 'records: not kept: the person was forgotten while the tool ran',
  timeout: (r) => `${why(r, 'the request took too long to arrive')}: send it again, faster`,
  internal: () => 'the service failed on this request: nothing was done that you can see; try again, and tell the operator if it persists',
  unavailable: (r) => `${why(r, 'the service cannot answer now')}: try again shortly`,
  moving: (r) => `${why(r, 'the tenant is being moved to another database')}: send the same request again after Retry-After`,
  move_failed: (r) => `${why(r, 'the copy did not check out')}: the tenant stays where it was, unchanged; report the reason`,
};

/** The agent API's messages all start `records:` (its SDK throws that text as is). */
export const AGENT_PREFIX = 'records: ';

const messageOf = (body: Refusal, surface: Surface): string => {
  const own = str(body.message) ?? addressedMessage(body, surface);
  if (own) return own;
  const of = (MESSAGES as Readonly<Record<string, (r: Fields) => string>>)[body.error];
  return of && Object.hasOwn(MESSAGES, body.error) ? of(body) : `refused (${String(body.error)}): check the request`;
};

/**
 * The refusal with its message (the agent API's prefixed), keeping every field it had, in order.
 * `surface` is who asked (the `x-custodian-client` header): a message that names what to call
 * next names that surface's call.
 */
export const withMessage = <B extends Refusal>(body: B, agentApi = false, surface: Surface = 'http'): B & { message: string } => {
  const message = messageOf(body, surface);
  const prefixed = agentApi && !message.startsWith(AGENT_PREFIX) ? `${AGENT_PREFIX}${message}` : message;
  return { ...body, message: prefixed };
};

/** A reply payload that is a refusal body: an object with a string `error`. */
export const isRefusalBody = (payload: unknown): payload is Refusal =>
  typeof payload === 'object' && payload !== null && !Array.isArray(payload) && typeof (payload as { error?: unknown }).error === 'string';

/** The agent API's paths (its unknown routes included): `/v1/agent`, `/v1/agent/…`. */
export const isAgentPath = (url: string) => /^\/v1\/agent(\/|$|\?)/.test(url);
