import type { DomainEvent } from '../domain/events/registry.ts';
import { appendFacts } from './append-facts.ts';
import type { Clock } from '../domain/ports/clock.ts';
import type { EventStore } from '../domain/ports/event-store.ts';
import { jobStream } from '../domain/shared/names.ts';
import type { CallContext } from '../queries/call-context.ts';
import type { Shown } from '../queries/records.ts';

export const readsStream = (tenant: string, job: string) => `reads:${tenant}:${job}`;

const append = (store: EventStore, stream: string, ctx: CallContext, events: DomainEvent[]) => appendFacts(store, stream, ctx.tenant, events, ctx.call, ctx.job);

/**
 * SPEC §4 read audit and labels. Labels a read brought are joined into the job first
 * (`LabelsJoined` on the job's stream: the job's later decisions depend on them); then
 * `RecordsRead` goes to the job's reads stream, kept apart so that reading never contends
 * with the job's own commands. The answer leaves only after both committed. Answers the
 * position the read models must reach before the call's next request, or null.
 */
export const readAudit = (store: EventStore, clock: Clock) => async (ctx: CallContext, op: 'get' | 'history' | 'list', shown: Shown): Promise<number | null> => {
  const now = clock.now();
  const fresh = shown.labels.filter((l) => !ctx.labels.includes(l));
  const joined = fresh.length === 0 ? null
    : await append(store, jobStream(ctx.tenant, ctx.job), ctx, [{ type: 'LabelsJoined', data: { tenant: ctx.tenant, job: ctx.job, run: ctx.run, call: ctx.call, labels: fresh, joined_ms: now } }]);
  await append(store, readsStream(ctx.tenant, ctx.job), ctx, [
    {
      type: 'RecordsRead',
      data: {
        tenant: ctx.tenant, job: ctx.job, run: ctx.run, call: ctx.call, step: ctx.step, op, startup: ctx.startup,
        plugin: ctx.plugin, purpose: ctx.purpose, records: shown.records, withheld: shown.withheld, read_ms: now,
      },
    },
  ]);
  return joined;
};
