import * as E from 'fp-ts/lib/Either.js';
import type { Decider } from '../shared/decider.ts';
import { canonicalJson, sha256Hex } from '../shared/hash.ts';
import { invalid, notFound, refusal, type Refusal } from '../shared/refusal.ts';
import type { TenantState } from '../tenants/state.ts';
import type { JobEvent } from './events.ts';
import type { JobStreamEvent } from './state.ts';
import { purposeOfInput } from './purpose.ts';
import { callScope, startScopes } from './scopes.ts';
import { evolveJob, initialJobState, jobView, liveCall, type CallState, type JobState } from './state.ts';
import { keyedGet, keyedHas, keyedValues } from './keyed.ts';
import { DEFAULT_LEVEL, chainVerifies, constraintsDigest, macInput, type Block, type SignedBlock } from '../envelopes/block.ts';
import { narrowBlock } from '../envelopes/narrow.ts';
import { startRevoked } from './sticky.ts';
import { wallHeld } from './walls.ts';
import { subjectProblem } from '../shared/subjects.ts';
import { assembleStartupText, type StartupAnswer } from '../startup/assemble.ts';
import { reachesPlugin, startupFunctions, startupTargets, type StartupOf } from '../startup/plugins.ts';
import { offloadThreshold } from '../files/threshold.ts';
import { grantsOf } from '../tenants/settings.ts';
import { absentTenant } from '../tenants/remove.ts';

export interface StartJobRequest {
  readonly agent: string;
  readonly plugin: string;
  readonly subject: string;
  readonly input?: unknown;
  readonly purpose?: string | undefined;
  readonly data_subject?: string | undefined;
  readonly labels?: readonly string[] | undefined;
  readonly budget_usd?: number | undefined;
  readonly max_depth?: number | undefined;
  readonly timeout_ms?: number | undefined;
  readonly constraints?: readonly string[] | undefined;
  /** A child start: the job it delegates from, and optionally fewer scopes than it could get. */
  readonly parent?: string | undefined;
  readonly scopes?: readonly string[] | undefined;
  /** SPEC §13: the tokens a result may weigh before it is offloaded, or "off". */
  readonly offload?: number | 'off' | undefined;
  /** SPEC §13: files other trees stored, handed to the new job's tree (the handler copies them). */
  readonly files?: readonly string[] | undefined;
}

export type JobCommand =
  | {
      readonly type: 'StartJob';
      readonly tenant: TenantState;
      readonly job: string;
      readonly request: StartJobRequest;
      /** The parent job's state, for a child start. */
      readonly parent: JobState | null;
      /** MACs a block's input under the tenant's envelope key (the key stays with the handler). */
      readonly mac: (input: string) => string;
      /** Whether the tree named by this id still holds files (SPEC §13): asked only for a chosen id. */
      readonly treeHoldsFiles?: boolean | undefined;
      readonly now: number;
    }
  | {
      readonly type: 'MintCall';
      readonly job: string;
      /** The revocations in the log since the job's epoch that reach its chain (none: absent or empty). */
      readonly revokedBy?: readonly string[] | undefined;
      /** Whether the job's envelope chain verified under the tenant's key: a bad chain gives nothing. */
      readonly envelopeValid: boolean;
      readonly function: string;
      readonly step?: number | undefined;
      readonly startup: boolean;
      /** Each installed plugin's start-up function, so a granted plugin's can be minted `startup: true`. */
      readonly startupOf?: StartupOf | undefined;
      /** Fresh randomness comes from the handler; the decider stays pure. */
      readonly call: string;
      readonly ticketHash: string;
      readonly newIdempotencyKey: string;
      readonly now: number;
    }
  | {
      readonly type: 'PrepareStartup';
      readonly job: string;
      readonly tenant: TenantState;
      readonly budget: number;
      readonly revokedBy?: readonly string[] | undefined;
      readonly envelopeValid: boolean;
      /** Fresh call ids and tickets, one for each plugin that may be asked (at most four). */
      readonly mints: readonly { readonly call: string; readonly ticketHash: string; readonly idempotencyKey: string }[];
      readonly now: number;
    }
  | {
      readonly type: 'AssembleStartupText';
      readonly job: string;
      readonly answers: readonly StartupAnswer[];
      /** Plugins asked whose start-up the tenant no longer lets the job reach (a revoked grant). */
      readonly refused: readonly string[];
      readonly now: number;
    }
  | { readonly type: 'EndCall'; readonly job: string; readonly call: string; readonly now: number }
  | { readonly type: 'EndJob'; readonly job: string; readonly now: number }
  | { readonly type: 'StopJob'; readonly job: string; readonly epoch: number; readonly reasons: readonly string[]; readonly now: number };

type Decision = E.Either<Refusal, readonly JobEvent[]>;
type Running = Extract<JobState, { exists: true }>;

/** What makes two starts "the same start" (SPEC §6): everything the caller asked for, the files it hands included. */
const startDigest = (r: StartJobRequest, purpose: string): string =>
  sha256Hex(
    canonicalJson({
      agent: r.agent,
      plugin: r.plugin,
      subject: r.subject,
      purpose,
      data_subject: r.data_subject ?? null,
      labels: [...new Set(r.labels ?? [])].sort(),
      budget_usd: r.budget_usd ?? null,
      max_depth: r.max_depth ?? null,
      timeout_ms: r.timeout_ms ?? null,
      constraints: r.constraints ?? null,
      parent: r.parent ?? null,
      scopes: r.scopes ? [...r.scopes].sort() : null,
      // The files it hands are part of a start (a start sent again hands what is still missing);
      // left out when none, so a start without files keeps the digest it always had.
      ...(r.files && r.files.length > 0 ? { files: [...new Set(r.files)].sort() } : {}),
    }),
  );

const purposeOf = (r: StartJobRequest): E.Either<Refusal, string> => {
  if (r.input !== undefined && r.purpose !== undefined)
    return E.left(invalid('purpose', 'give either input (hashed into the purpose) or a named purpose, not both'));
  if (r.input !== undefined) return E.right(purposeOfInput(r.input));
  return E.right(r.purpose ?? '');
};

/** A null expiry is none: such a job never expires (SPEC §6). */
const pastExpiry = (expires: number | null, now: number) => expires !== null && now >= expires;
const isExpired = (s: Running, now: number) => pastExpiry(s.start.expires_ms, now);

/** A child's constraints: its parent's, word for word, then any it adds. */
const childConstraints = (parent: unknown, added: readonly string[] | undefined): string[] => {
  const inherited = Array.isArray(parent) ? (parent as string[]) : [];
  return [...inherited, ...(added ?? []).filter((x) => !inherited.includes(x))];
};

const startJob = (c: Extract<JobCommand, { type: 'StartJob' }>, s: JobState): Decision => {
  const tenant = c.tenant;
  if (!tenant.exists) return E.left(absentTenant(null, tenant));
  const r = c.request;
  const badSubject = subjectProblem(r.subject);
  if (badSubject !== null) return E.left(invalid('subject', badSubject));
  // Revocations stick, a retried start of a stopped id included.
  const revoked = startRevoked(tenant, r);
  if (revoked !== null) return E.left(refusal('revoked', { reason: revoked }));
  const plugin = tenant.plugins.get(r.plugin);
  if (!plugin) return E.left(refusal('not_found', { what: 'plugin', plugin: r.plugin }));
  if (!plugin.agents.includes(r.agent)) return E.left(invalid('agent', `plugin ${r.plugin} declares no agent "${r.agent}"`));
  const purpose = purposeOf(r);
  if (E.isLeft(purpose)) return purpose;
  const digest = startDigest(r, purpose.right);

  if (s.exists && s.status === 'running') {
    if (s.start.start_digest === digest) return E.right([]);
    return E.left(refusal('already_exists', { job: jobView(s) }));
  }
  // A new job under an ended job's id would inherit that tree's files: refused while it holds any.
  if (s.exists && c.treeHoldsFiles === true) return E.left(refusal('files_held', { job: c.job, reason: 'the tree of this id still holds files' }));
  const reach = startScopes(plugin, grantsOf(tenant.settings, plugin.name), tenant.plugins);
  const run = s.exists ? s.start.run + 1 : 1;
  const expiresAsked = r.timeout_ms === undefined ? undefined : c.now + r.timeout_ms;
  const labels = [...new Set(r.labels ?? [])].sort();

  let chain: SignedBlock[];
  let constraints: string[] | null;
  let jobPurpose = purpose.right;
  let dataSubject = r.data_subject ?? null;
  // Who a block names, whether it starts a chain or narrows a parent's (read when the block is
  // made: a child's purpose is its tree's, settled below).
  const whose = () => ({
    job: c.job,
    run,
    subject: r.subject,
    agent: r.agent,
    agent_version: String(plugin.install_gen),
    plugin: plugin.name,
    install_gen: plugin.install_gen,
    purpose: jobPurpose,
  });
  if (r.parent !== undefined) {
    const parent = c.parent;
    if (!parent || !parent.exists) return E.left(refusal('not_found', { what: 'parent' }));
    if (parent.status !== 'running' || pastExpiry(parent.start.expires_ms, c.now))
      return E.left(refusal('job_not_running', { status: parent.status, what: 'parent' }));
    const parentHead = parent.chain.at(-1);
    if (!parentHead || !chainVerifies(parent.chain, c.mac)) return E.left(refusal('envelope_invalid', { what: 'parent' }));
    // The tree keeps the purpose and the data subject it was started for.
    if ((r.input !== undefined || r.purpose !== undefined) && purpose.right !== parent.start.purpose)
      return E.left(refusal('widening_refused', { field: 'purpose', reason: "a child runs for its tree's purpose" }));
    if (r.data_subject !== undefined && r.data_subject !== parent.start.data_subject)
      return E.left(refusal('widening_refused', { field: 'data_subject', reason: "a child runs for its tree's data subject" }));
    jobPurpose = parent.start.purpose;
    dataSubject = parent.start.data_subject;
    constraints = childConstraints(parent.start.constraints, r.constraints);
    // The parent's current labels (its start labels and every label joined since, folded from
    // its own stream), not its block's: a wall or a taint is never shed by delegating.
    const inherited = [...new Set([...labels, ...parent.start.labels])].sort();
    const wall = wallHeld(tenant.settings.label_walls, inherited);
    if (wall) return E.left(refusal('label_wall', { labels: wall, reason: "a child holds its parent's labels: it cannot add the far side of a wall" }));
    const block = narrowBlock(parentHead.block, {
      ...whose(),
      reach,
      scopes: r.scopes,
      budget_usd: r.budget_usd,
      max_depth: r.max_depth,
      expires_ms: expiresAsked,
      labels: inherited,
      constraints_digest: constraintsDigest(constraints),
      policy_version: tenant.settings_version,
    });
    if (E.isLeft(block)) return block;
    chain = [...parent.chain, { block: block.right, mac: c.mac(macInput(block.right, parentHead.mac)) }];
  } else {
    const wall = wallHeld(tenant.settings.label_walls, labels);
    if (wall) return E.left(refusal('label_wall', { labels: wall, reason: 'a job never holds both labels of a wall' }));
    if (r.scopes) {
      const extra = r.scopes.find((x) => !reach.includes(x));
      if (extra !== undefined) return E.left(refusal('widening_refused', { field: 'scopes', reason: `${extra} is not in the plugin's reach` }));
    }
    constraints = r.constraints ? [...r.constraints] : null;
    const block: Block = {
      ...whose(),
      scopes: r.scopes ? [...r.scopes].sort() : reach,
      // Ceilings default to none: the start's, else the tenant's depth, else null.
      budget_usd: r.budget_usd ?? null,
      max_depth: r.max_depth ?? tenant.settings.max_depth ?? null,
      depth: 0,
      expires_ms: expiresAsked ?? null,
      policy_version: tenant.settings_version,
      epoch: tenant.authority_epoch,
      level: DEFAULT_LEVEL,
      granted_by: `tenant:${tenant.id}`,
      level_policy_version: 1,
      labels,
      constraints_digest: constraintsDigest(constraints ?? []),
    };
    chain = [{ block, mac: c.mac(macInput(block, '')) }];
  }
  const head = chain.at(-1)!.block;
  return E.right([
    {
      type: 'JobStarted',
      data: {
        tenant: tenant.id,
        job: c.job,
        run,
        agent: r.agent,
        plugin: plugin.name,
        install_gen: plugin.install_gen,
        purpose: jobPurpose,
        subject: head.subject,
        data_subject: dataSubject,
        labels: head.labels,
        scopes: head.scopes,
        startup_function: plugin.startup,
        budget_usd: head.budget_usd,
        max_depth: head.max_depth,
        expires_ms: head.expires_ms,
        constraints,
        parent: r.parent ?? null,
        start_digest: digest,
        started_ms: c.now,
        offload: offloadThreshold(r.offload, tenant.settings),
      },
    },
    ...chain.map((signed, index): JobEvent => ({ type: 'EnvelopeBlockAppended', data: { tenant: tenant.id, job: c.job, run, index, signed } })),
  ]);
};

/** A call minted without a step takes the one after the highest step of the run. */
const nextStep = (s: Running): number => s.last_step + 1;

/** A retry of a step shares the step's idempotency key, its earlier calls ended or not. */
const stepKey = (s: Running, step: number): string | undefined => keyedGet(s.steps, step)?.key;

/** The calls still live at a step: a retry of the step ends them. */
const liveAtStep = (s: Running, step: number): readonly string[] => keyedGet(s.steps, step)?.live ?? [];

const mintCall = (c: Extract<JobCommand, { type: 'MintCall' }>, s: JobState): Decision => {
  if (!s.exists) return E.left(notFound('job'));
  if (s.status !== 'running') return E.left(refusal('job_not_running', { status: s.status }));
  if (isExpired(s, c.now)) return E.left(refusal('job_not_running', { status: 'expired' }));
  if (c.revokedBy && c.revokedBy.length > 0) return E.left(refusal('revoked', { reason: c.revokedBy.join('; ') }));
  if (!c.envelopeValid) return E.left(refusal('envelope_invalid'));
  const scope = callScope(s.start.plugin, c.function);
  // A granted plugin's start-up function is the job's to call when the job reaches that plugin at all (SPEC §4).
  const grantedStartup = c.startup && c.function.includes('/') && reachesPlugin(s.start.scopes, c.function.slice(0, c.function.indexOf('/')));
  if (!s.start.scopes.includes(scope) && !grantedStartup)
    return E.left(refusal('scope', { function: c.function, reason: `${scope} is not in the job's scopes` }));
  if (c.startup && c.function.includes('/')) {
    // A plugin reached under a grant adds start-up text through its own declared start-up function.
    const [plugin, fn] = [c.function.slice(0, c.function.indexOf('/')), c.function.slice(c.function.indexOf('/') + 1)];
    const declared = c.startupOf ? c.startupOf(plugin) : null;
    if (declared !== fn)
      return E.left(
        invalid(
          'startup',
          declared === null
            ? `plugin ${plugin} declares no startup function`
            : `only plugin ${plugin}'s startup function (${declared}) is minted with startup: true`,
        ),
      );
  } else if (c.startup && s.start.startup_function !== c.function)
    return E.left(
      invalid(
        'startup',
        s.start.startup_function === null
          ? `plugin ${s.start.plugin} declares no startup function`
          : `only the plugin's startup function (${s.start.startup_function}) is minted with startup: true`,
      ),
    );

  const step = c.step ?? nextStep(s);
  const ends: JobEvent[] = liveAtStep(s, step).map((call) => ({
    type: 'CallEnded',
    data: { tenant: s.start.tenant, job: s.start.job, call, reason: 'retried', ended_ms: c.now },
  }));
  return E.right([
    ...ends,
    {
      type: 'CallMinted',
      data: {
        tenant: s.start.tenant,
        job: s.start.job,
        run: s.start.run,
        call: c.call,
        step,
        function: c.function,
        ticket_hash: c.ticketHash,
        idempotency_key: stepKey(s, step) ?? c.newIdempotencyKey,
        startup: c.startup,
        minted_ms: c.now,
      },
    },
  ]);
};

/** Mints a start-up call for each plugin that adds start-up text (SPEC §4), in one append. */
const prepareStartup = (c: Extract<JobCommand, { type: 'PrepareStartup' }>, s: JobState): Decision => {
  if (!s.exists) return E.left(notFound('job'));
  if (!c.tenant.exists) return E.left(absentTenant(null, c.tenant));
  const targets = startupTargets(s.start, grantsOf(c.tenant.settings, s.start.plugin), c.tenant.plugins);
  const startupOf = startupFunctions(c.tenant.plugins);
  const events: JobEvent[] = [];
  const plugins: { plugin: string; function: string; call: string }[] = [];
  let state: JobState = s;
  for (const [i, target] of targets.entries()) {
    const mint = c.mints[i];
    if (!mint) throw new Error('prepareStartup: fewer fresh calls than plugins');
    const minted = mintCall(
      {
        type: 'MintCall',
        job: c.job,
        revokedBy: c.revokedBy,
        envelopeValid: c.envelopeValid,
        function: target.function,
        startup: true,
        startupOf,
        call: mint.call,
        ticketHash: mint.ticketHash,
        newIdempotencyKey: mint.idempotencyKey,
        now: c.now,
      },
      state,
    );
    if (E.isLeft(minted)) return minted;
    events.push(...minted.right);
    state = minted.right.reduce<JobState>(evolveJob, state);
    plugins.push({ ...target, call: mint.call });
  }
  // A job without start-up plugins still passes the running checks before it is told so.
  if (targets.length === 0) {
    if (s.status !== 'running') return E.left(refusal('job_not_running', { status: s.status }));
    if (isExpired(s, c.now)) return E.left(refusal('job_not_running', { status: 'expired' }));
    if (c.revokedBy && c.revokedBy.length > 0) return E.left(refusal('revoked', { reason: c.revokedBy.join('; ') }));
  }
  const { tenant, job, run } = s.start;
  return E.right([...events, { type: 'StartupPrepared', data: { tenant, job, run, budget: c.budget, plugins, prepared_ms: c.now } }]);
};

const assembleStartup = (c: Extract<JobCommand, { type: 'AssembleStartupText' }>, s: JobState): Decision => {
  if (!s.exists) return E.left(notFound('job'));
  if (s.status !== 'running') return E.left(refusal('job_not_running', { status: s.status }));
  if (!s.startup) return E.left(invalid('startup', 'no start-up was prepared for this job: POST …/startup first'));
  const plugins = s.startup.plugins.map((p) => p.plugin);
  const a = assembleStartupText(plugins, c.answers, s.startup.budget, c.refused);
  const { tenant, job, run } = s.start;
  return E.right([
    {
      type: 'StartupTextAssembled',
      data: { tenant, job, run, budget: s.startup.budget, plugins, kept: [...a.kept], left_out: [...a.left_out], tokens: a.tokens, assembled_ms: c.now },
    },
  ]);
};

/** Ending an ended call is a no-op; a call the run never minted is not found. */
const endCall = (c: Extract<JobCommand, { type: 'EndCall' }>, s: JobState): Decision => {
  if (!s.exists) return E.left(notFound('job'));
  if (keyedHas(s.ended, c.call)) return E.right([]);
  if (!liveCall(s, c.call)) return E.left(notFound('call'));
  return E.right([{ type: 'CallEnded', data: { tenant: s.start.tenant, job: s.start.job, call: c.call, reason: 'ended', ended_ms: c.now } }]);
};

/** Live calls in the order they were stepped (the map keeps them in hash order). */
const byStep = (calls: readonly CallState[]) => [...calls].sort((a, b) => a.step - b.step || (a.call < b.call ? -1 : a.call > b.call ? 1 : 0));

/** Ending a job kills every ticket it still holds: tickets never outlive their job. */
const endJob = (c: Extract<JobCommand, { type: 'EndJob' }>, s: JobState): Decision => {
  if (!s.exists) return E.left(notFound('job'));
  if (s.status !== 'running') return E.right([]);
  const { tenant, job, run } = s.start;
  return E.right([
    ...byStep(keyedValues(s.calls)).map((call): JobEvent => ({
      type: 'CallEnded',
      data: { tenant, job, call: call.call, reason: 'job_ended', ended_ms: c.now },
    })),
    { type: 'JobEnded', data: { tenant, job, run, ended_ms: c.now } },
  ]);
};

export const decideJob = (c: JobCommand, s: JobState): Decision => {
  switch (c.type) {
    case 'StartJob':
      return startJob(c, s);
    case 'MintCall':
      return mintCall(c, s);
    case 'PrepareStartup':
      return prepareStartup(c, s);
    case 'AssembleStartupText':
      return assembleStartup(c, s);
    case 'EndCall':
      return endCall(c, s);
    case 'EndJob':
      return endJob(c, s);
    case 'StopJob':
      return s.exists && s.status === 'running'
        ? E.right([
            {
              type: 'JobStopped',
              data: { tenant: s.start.tenant, job: s.start.job, run: s.start.run, epoch: c.epoch, reasons: [...c.reasons], stopped_ms: c.now },
            },
          ])
        : E.right([]);
  }
};

export const jobDecider: Decider<JobCommand, JobStreamEvent, JobState> = {
  initialState: initialJobState,
  evolve: evolveJob,
  decide: decideJob,
};
