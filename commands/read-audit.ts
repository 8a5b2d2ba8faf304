import { randomUUID } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import { eventRegistry, type DomainEvent } from '../domain/events/registry.ts';
import type { Clock } from '../domain/ports/clock.ts';
import type { EventStore } from '../domain/ports/event-store.ts';
import { jobStream } from '../domain/shared/names.ts';
import type { CallContext } from '../queries/call-context.ts';
import type { Shown } from '../queries/records.ts';

/**
 * SPEC §4 read audit and labels: every read appends `RecordsRead` (and, when it brought new
 * labels, `LabelsJoined`) to the job's stream, and the answer leaves only after that append
 * committed. Reads never conflict with one another, so they append with `any`.
 */
export const readAudit = (store: EventStore, clock: Clock) => async (ctx: CallContext, op: 'get' | 'history' | 'list', shown: Shown): Promise<number> => {
  const now = clock.now();
  const events: DomainEvent[] = [
    {
      type: 'RecordsRead',
      data: {
        tenant: ctx.tenant, job: ctx.job, run: ctx.run, call: ctx.call, step: ctx.step, op, startup: ctx.startup,
        plugin: ctx.plugin, purpose: ctx.purpose, records: shown.records, withheld: shown.withheld, read_ms: now,
      },
    },
  ];
  const fresh = shown.labels.filter((l) => !ctx.labels.includes(l));
  if (fresh.length > 0) events.push({ type: 'LabelsJoined', data: { tenant: ctx.tenant, job: ctx.job, run: ctx.run, call: ctx.call, labels: fresh, joined_ms: now } });
  const appended = await store.append(
    jobStream(ctx.tenant, ctx.job),
    events.map((e) => ({ event_id: randomUUID(), ...eventRegistry.encode(e), metadata: { tenant: ctx.tenant, causation_id: ctx.call, correlation_id: ctx.job } })),
    'any',
  );
  if (E.isLeft(appended)) throw new Error('an append with expected revision any cannot conflict');
  return appended.right.position;
};
