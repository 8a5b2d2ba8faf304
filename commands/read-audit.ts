import * as E from 'fp-ts/lib/Either.js';
import type { DomainEvent } from '../domain/events/registry.ts';
import { envelope } from './envelope.ts';
import type { Clock } from '../domain/ports/clock.ts';
import type { EventStore } from '../domain/ports/event-store.ts';
import { jobStream } from '../domain/shared/names.ts';
import type { CallContext } from '../queries/call-context.ts';
import type { Shown } from '../queries/records.ts';
import { guardToSend, heardVerdict, type CarriedGuard } from '../domain/ports/admission-guard.ts';

/** The read's labels were filtered on a job whose labels have moved since: read again. */
export const LABELS_MOVED = Symbol('labels moved');

export const readsStream = (tenant: string, job: string) => `reads:${tenant}:${job}`;

/** Appends facts that conflict with nothing (expected revision `any`), carrying the request's guard until an answer counted it. */
const append = async (store: EventStore, stream: string, ctx: CallContext, events: DomainEvent[], guard: CarriedGuard | null) => {
  const appended = await store.append(stream, envelope({ tenant: ctx.tenant, causation: ctx.call, correlation: ctx.job }, events), 'any', {
    guard: guardToSend(guard),
  });
  if (E.isLeft(appended)) throw new Error('an append with expected revision any cannot conflict');
  heardVerdict(guard, appended);
  return appended.right.position;
};

/**
 * SPEC §4 read audit and labels. Labels a read brought are joined into the job first
 * (`LabelsJoined` on the job's stream: the job's later decisions depend on them); then
 * `RecordsRead` goes to the job's reads stream, kept apart so that reading never contends
 * with the job's own commands. The answer leaves only after both committed. Answers the
 * position the read models must reach before the call's next request, or null. `guard`: the
 * request's cached admission, which its appends carry until an answer says it was counted.
 */
export const readAudit =
  (store: EventStore, clock: Clock) =>
  async (ctx: CallContext, op: 'get' | 'history' | 'list', shown: Shown, guard: CarriedGuard | null = null): Promise<number | null | typeof LABELS_MOVED> => {
    const now = clock.now();
    const fresh = shown.labels.filter((l) => !ctx.labels.includes(l));
    let joined: number | null = null;
    if (fresh.length > 0) {
      // Joined on the revision the read was filtered with: if the job's labels moved meanwhile
      // (another read joined the far side of a wall), this read is decided again, not answered.
      const labels: DomainEvent = {
        type: 'LabelsJoined',
        data: { tenant: ctx.tenant, job: ctx.job, run: ctx.run, call: ctx.call, labels: fresh, joined_ms: now },
      };
      const appended = await store.append(
        jobStream(ctx.tenant, ctx.job),
        envelope({ tenant: ctx.tenant, causation: ctx.call, correlation: ctx.job }, [labels]),
        ctx.job_revision ?? 'any',
        { guard: guardToSend(guard) },
      );
      heardVerdict(guard, appended);
      if (E.isLeft(appended)) return LABELS_MOVED;
      joined = appended.right.position;
    }
    await append(
      store,
      readsStream(ctx.tenant, ctx.job),
      ctx,
      [
        {
          type: 'RecordsRead',
          data: {
            tenant: ctx.tenant,
            job: ctx.job,
            run: ctx.run,
            call: ctx.call,
            step: ctx.step,
            op,
            startup: ctx.startup,
            plugin: ctx.plugin,
            purpose: ctx.purpose,
            records: shown.records,
            withheld: shown.withheld,
            read_ms: now,
          },
        },
      ],
      guard,
    );
    return joined;
  };
