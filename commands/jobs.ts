import { randomBytes, randomUUID } from 'node:crypto';
import { ticketHash } from '../domain/shared/hash.ts';
import * as E from 'fp-ts/lib/Either.js';
import type { Clock } from '../domain/ports/clock.ts';
import type { EventStore } from '../domain/ports/event-store.ts';
import { jobDecider, type JobCommand, type StartJobRequest } from '../domain/jobs/decide.ts';
import { envelopeView, jobView, type JobState } from '../domain/jobs/state.ts';
import { chainVerifies } from '../domain/envelopes/block.ts';
import type { EnvelopeMacs } from '../domain/ports/envelope-macs.ts';
import { wideningRefusedDecider } from '../domain/jobs/widening-refused.ts';
import { jobStream, tenantStream } from '../domain/shared/names.ts';
import type { Refusal } from '../domain/shared/refusal.ts';
import { tenantDecider } from '../domain/tenants/decide.ts';
import { handleCommand, loadState, type Handled } from './handle.ts';
import type { Ctx } from './tenants.ts';

/** Tickets carry 256 random bits; only their SHA-256 is ever stored. */
export const newTicket = (): string => randomBytes(32).toString('base64url');

type Existing = Extract<JobState, { exists: true }>;
const existing = (h: Handled<JobState>): Existing => {
  if (!h.state.exists) throw new Error('job command succeeded without a job');
  return h.state;
};

export interface MintedCall {
  readonly call: string;
  readonly step: number;
  readonly function: string;
  readonly ticket: string;
  readonly idempotency_key: string;
  readonly agent: string;
  readonly startup: boolean;
  readonly position: number | null;
}

export const jobCommands = (store: EventStore, clock: Clock, macs: EnvelopeMacs) => {
  const run = (tenant: string, job: string, command: JobCommand | ((s: JobState) => JobCommand), ctx: Ctx) =>
    handleCommand(store, jobStream(tenant, job), jobDecider, command, { ...ctx, tenant });

  return {
    async start(tenant: string, job: string | undefined, request: StartJobRequest, ctx: Ctx = {}) {
      const id = job ?? randomUUID();
      const { state: tenantState } = await loadState(store, tenantStream(tenant), tenantDecider);
      const parent = request.parent === undefined ? null : (await loadState(store, jobStream(tenant, request.parent), jobDecider)).state;
      const now = clock.now();
      const result = await run(tenant, id, { type: 'StartJob', tenant: tenantState, job: id, request, parent, mac: macs(tenant), now }, ctx);
      if (E.isLeft(result) && result.left.error === 'widening_refused' && parent?.exists) {
        // The refusal is a fact of the parent's tree: it goes on the parent's stream, for the audit.
        const { field, reason } = result.left as unknown as { field: string; reason: string };
        const noted = await handleCommand(store, jobStream(tenant, parent.start.job), wideningRefusedDecider, { tenant, job: parent.start.job, run: parent.start.run, child: id, field, reason, now }, { ...ctx, tenant });
        if (E.isLeft(noted)) return noted;
      }
      return E.map((h: Handled<JobState>) => {
        const s = existing(h);
        return { job: jobView(s), envelope: envelopeView(s), position: h.position };
      })(result);
    },

    async mintCall(tenant: string, job: string, fn: string, options: { step?: number | undefined; startup?: boolean | undefined }, ctx: Ctx = {}): Promise<E.Either<Refusal, MintedCall>> {
      const ticket = newTicket();
      const call = randomUUID();
      const mac = macs(tenant);
      const result = await run(tenant, job, (state: JobState) => ({
        type: 'MintCall',
        envelopeValid: state.exists && chainVerifies(state.chain, mac),
        job,
        function: fn,
        step: options.step,
        startup: options.startup ?? false,
        call,
        ticketHash: ticketHash(ticket),
        newIdempotencyKey: randomBytes(18).toString('base64url'),
        now: clock.now(),
      }), ctx);
      return E.map((h: Handled<JobState>) => {
        const s = existing(h);
        const minted = s.calls[call]!;
        return {
          call,
          step: minted.step,
          function: minted.function,
          ticket,
          idempotency_key: minted.idempotency_key,
          agent: `${s.start.plugin}/${s.start.agent}`,
          startup: minted.startup,
          position: h.position,
        };
      })(result);
    },

    async endCall(tenant: string, job: string, call: string, ctx: Ctx = {}) {
      const result = await run(tenant, job, { type: 'EndCall', job, call, now: clock.now() }, ctx);
      return E.map((h: Handled<JobState>) => ({ call: { id: call, ended: true }, position: h.position }))(result);
    },

    async end(tenant: string, job: string, ctx: Ctx = {}) {
      const result = await run(tenant, job, { type: 'EndJob', job, now: clock.now() }, ctx);
      return E.map((h: Handled<JobState>) => ({ job: jobView(existing(h)), position: h.position }))(result);
    },
  };
};

export type JobCommands = ReturnType<typeof jobCommands>;
