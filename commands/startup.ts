import { randomBytes, randomUUID } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import type { Clock } from '../domain/ports/clock.ts';
import type { EventStore } from '../domain/ports/event-store.ts';
import type { EnvelopeMacs } from '../domain/ports/envelope-macs.ts';
import { chainVerifies } from '../domain/envelopes/block.ts';
import { jobDecider, type JobCommand } from '../domain/jobs/decide.ts';
import { liveCall, type JobState } from '../domain/jobs/state.ts';
import { jobStream } from '../domain/shared/names.ts';
import { refusal, type Refusal } from '../domain/shared/refusal.ts';
import { assembleStartupText, MAX_STARTUP_PLUGINS, type StartupAnswer } from '../domain/startup/assemble.ts';
import { startupTargets } from '../domain/startup/plugins.ts';
import { newTicket } from './jobs.ts';
import { handleCommand, type Handled } from './handle.ts';
import { reachedSince, tenantLog } from './revocations-since.ts';
import { ticketHash } from '../domain/shared/hash.ts';
import type { Ctx } from './tenants.ts';

export interface StartupCall {
  readonly plugin: string;
  readonly function: string;
  readonly call: string;
  readonly step: number;
  readonly ticket: string;
  readonly idempotency_key: string;
  readonly agent: string;
}

/** Start-up text (SPEC §4): mint the start-up calls, then assemble what they answered. */
export const startupCommands = (store: EventStore, clock: Clock, macs: EnvelopeMacs, settle?: (position: number) => Promise<unknown>) => {
  const run = (tenant: string, job: string, command: JobCommand | ((s: JobState) => JobCommand), ctx: Ctx) =>
    handleCommand(store, jobStream(tenant, job), jobDecider, command, { ...ctx, tenant }, (t) =>
      refusal('envelope_invalid', { reason: `the job's log does not verify: ${t.reason} (revision ${t.revision})` }),
    );

  return {
    async prepare(tenant: string, job: string, budget: number, ctx: Ctx = {}): Promise<E.Either<Refusal, { calls: StartupCall[]; position: number | null }>> {
      const newest = (await store.readStream(jobStream(tenant, job))).at(-1)?.position;
      if (settle && newest !== undefined) await settle(newest);
      const log = await tenantLog(store, tenant);
      const tenantState = log.state;
      const mac = macs(tenant);
      const tickets = Array.from({ length: MAX_STARTUP_PLUGINS }, () => newTicket());
      const mints = tickets.map((ticket) => ({ call: randomUUID(), ticketHash: ticketHash(ticket), idempotencyKey: randomBytes(18).toString('base64url') }));
      const result = await run(
        tenant,
        job,
        (state: JobState) => ({
          type: 'PrepareStartup',
          job,
          tenant: tenantState,
          budget,
          revokedBy: state.exists ? reachedSince(log, state.chain).reasons : [],
          envelopeValid: state.exists && chainVerifies(state.chain, mac),
          mints,
          now: clock.now(),
        }),
        ctx,
      );
      return E.map((h: Handled<JobState>) => {
        const s = h.state;
        if (!s.exists || !s.startup) throw new Error('start-up prepared without a job');
        const calls = s.startup.plugins.map((p): StartupCall => {
          const i = mints.findIndex((m) => m.call === p.call);
          const minted = liveCall(s, p.call)!;
          return {
            plugin: p.plugin,
            function: p.function,
            call: p.call,
            step: minted.step,
            ticket: tickets[i]!,
            idempotency_key: minted.idempotency_key,
            agent: s.start.agent,
          };
        });
        return { calls, position: h.position };
      })(result);
    },

    async assemble(tenant: string, job: string, answers: readonly StartupAnswer[], ctx: Ctx = {}) {
      // One linear fold of the tenant's stream, as a mint's tenant log is.
      const { state: tenantState } = await tenantLog(store, tenant);
      // A plugin asked whose start-up the job no longer reaches (a revoked grant, a removed plugin) adds nothing.
      const result = await run(
        tenant,
        job,
        (state: JobState) => {
          const reachable =
            state.exists && tenantState.exists
              ? startupTargets(state.start, tenantState.settings.grants[state.start.plugin] ?? [], tenantState.plugins).map((t) => t.plugin)
              : [];
          const asked = state.exists && state.startup ? state.startup.plugins.map((p) => p.plugin) : [];
          return { type: 'AssembleStartupText', job, answers, refused: asked.filter((p) => !reachable.includes(p)), now: clock.now() };
        },
        ctx,
      );
      return E.map((h: Handled<JobState>) => {
        const s = h.state;
        if (!s.exists || !s.startup) throw new Error('start-up text assembled without a start-up');
        const event = h.events.find((e) => e.type === 'StartupTextAssembled');
        const refused = event?.type === 'StartupTextAssembled' ? event.data.left_out.filter((l) => l.reason === 'refused').map((l) => l.plugin) : [];
        // The same pure function the decider used: the text is never stored, so it is made again here.
        const a = assembleStartupText(
          s.startup.plugins.map((p) => p.plugin),
          answers,
          s.startup.budget,
          refused,
        );
        return { ...a, position: h.position };
      })(result);
    },
  };
};

export type StartupCommands = ReturnType<typeof startupCommands>;
