import * as E from 'fp-ts/lib/Either.js';
import type { DomainEvent } from '../domain/events/registry.ts';
import { jobDecider } from '../domain/jobs/decide.ts';
import type { EventStore, ExpectedRevision } from '../domain/ports/event-store.ts';
import type { JobState } from '../domain/jobs/state.ts';
import { crossesWall } from '../domain/records/visibility.ts';
import { refusal, type Refusal } from '../domain/shared/refusal.ts';
import { jobStream } from '../domain/shared/names.ts';
import type { CallContext } from '../queries/call-context.ts';
import { envelope } from './envelope.ts';
import { loadState } from './handle.ts';

const MAX_ATTEMPTS = 5;

/** A job's state and the revision it was folded to. */
export type JobLoader = (tenant: string, job: string) => Promise<{ readonly state: JobState; readonly revision: ExpectedRevision }>;

/**
 * Reading a file joins its labels into the reading job (SPEC §13), by the records API's rule
 * (SPEC §4 Labels): a file whose labels are across a wall from the job's is withheld. The
 * job's labels are folded from its own stream and the join appended expecting that revision,
 * so two reads at once can never take a job both sides of a wall. Answers the position the
 * read models must reach before the call's next request, or null when nothing was joined.
 */
export const joinFileLabels = async (
  store: EventStore,
  ctx: CallContext,
  labels: readonly string[],
  now: number,
  /** The job's state from the job commands' cache or snapshot; none: the job's stream is folded whole. */
  folded: JobLoader = (tenant, job) => loadState(store, jobStream(tenant, job), jobDecider),
): Promise<E.Either<Refusal, number | null>> => {
  if (labels.length === 0) return E.right(null);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const { state, revision } = await folded(ctx.tenant, ctx.job);
    const held = new Set(state.exists ? state.start.labels : ctx.labels);
    if (crossesWall(ctx.settings.label_walls, held, labels)) return E.left(refusal('withheld', {}));
    const fresh = labels.filter((l) => !held.has(l));
    if (fresh.length === 0) return E.right(null);
    const joined: DomainEvent = {
      type: 'LabelsJoined',
      data: { tenant: ctx.tenant, job: ctx.job, run: ctx.run, call: ctx.call, labels: fresh, joined_ms: now },
    };
    const appended = await store.append(
      jobStream(ctx.tenant, ctx.job),
      envelope({ tenant: ctx.tenant, causation: ctx.call, correlation: ctx.job }, [joined]),
      revision,
    );
    if (E.isRight(appended)) return E.right(appended.right.position);
  }
  return E.left(refusal('unavailable', { reason: "the job's labels kept moving; try again" }));
};
