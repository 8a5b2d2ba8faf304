import { randomBytes, randomUUID } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import type { Clock } from '../domain/ports/clock.ts';
import type { EnvelopeMacs } from '../domain/ports/envelope-macs.ts';
import { chainVerifies } from '../domain/envelopes/block.ts';
import { liveCall, type JobState } from '../domain/jobs/state.ts';
import type { Refusal } from '../domain/shared/refusal.ts';
import { assembleStartupText, MAX_STARTUP_PLUGINS, type StartupAnswer } from '../domain/startup/assemble.ts';
import { startupTargets } from '../domain/startup/plugins.ts';
import { grantsOf } from '../domain/tenants/settings.ts';
import { newTicket, type JobCommands } from './jobs.ts';
import type { Handled } from './handle.ts';
import { reachedSince } from './revocations-since.ts';
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

/**
 * Start-up text (SPEC §4): mint the start-up calls, then assemble what they answered. Both are
 * job commands decided on the job commands' own path (`onSettledJob`: their cache, the job's
 * snapshot and parts, the tenant's cached log), so neither replays the job's or the tenant's
 * whole stream.
 */
export const startupCommands = (jobs: Pick<JobCommands, 'onSettledJob'>, clock: Clock, macs: EnvelopeMacs) => {
  return {
    async prepare(tenant: string, job: string, budget: number, ctx: Ctx = {}): Promise<E.Either<Refusal, { calls: StartupCall[]; position: number | null }>> {
      const mac = macs(tenant);
      const tickets = Array.from({ length: MAX_STARTUP_PLUGINS }, () => newTicket());
      const mints = tickets.map((ticket) => ({ call: randomUUID(), ticketHash: ticketHash(ticket), idempotencyKey: randomBytes(18).toString('base64url') }));
      const result = await jobs.onSettledJob(
        tenant,
        job,
        (log) => (state: JobState) => ({
          type: 'PrepareStartup',
          job,
          tenant: log.state,
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
      // A plugin asked whose start-up the job no longer reaches (a revoked grant, a removed plugin) adds nothing.
      const result = await jobs.onSettledJob(
        tenant,
        job,
        ({ state: tenantState }) =>
          (state: JobState) => {
            const reachable =
              state.exists && tenantState.exists
                ? startupTargets(state.start, grantsOf(tenantState.settings, state.start.plugin), tenantState.plugins).map((t) => t.plugin)
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
