import * as E from 'fp-ts/lib/Either.js';
import { eventRegistry } from '../../domain/events/registry.ts';
import type { NewEvent } from '../../domain/ports/event-store.ts';
import type { Fragment, UnitEvent } from '../../projections/fragments.ts';
import type { Projection } from '../../projections/projection.ts';
import { handles } from '../../projections/runner.ts';

/** An event of a batch's unit, as the commit has it (not yet placed), with the unit's 1-based place. */
export interface UnitNewEvent {
  readonly unit: number;
  readonly event: NewEvent;
}

/**
 * Read models written in their commit's own statement (Marten's and Emmett's "inline
 * projections"): an answer that depends on them needs no wait for the projection runner, and
 * they can never disagree with the log.
 */
export interface InlineProjections {
  /** Whether events of this type touch the inline models. */
  handles(type: string): boolean;
  /** Their writes for a batch's events (the ones `handles` takes), as fragments that write only the units the statement's `committed` CTE names. */
  fragments(events: readonly UnitNewEvent[]): Promise<readonly Fragment[]>;
}

/**
 * The projections that say they are inline, each given the batch's events its own
 * `canHandle` names (as the runner would), in batch order. `custodian rebuild` still rebuilds
 * them from the log like any other.
 */
export const inlineProjections = (projections: readonly Projection[]): InlineProjections => {
  const types = new Set<string>();
  for (const p of projections) {
    // A model handed every event would put a read of each into every commit: it must say what it reads, and say it as fragments.
    if (!p.canHandle || !p.fragments) throw new Error(`projection ${p.name} cannot run inline: it must declare canHandle and fragments`);
    p.canHandle.forEach((t) => types.add(t));
  }
  return {
    handles: (type) => types.has(type),
    async fragments(events) {
      const decoded = events.map(decode);
      const all: Fragment[] = [];
      for (const p of projections) {
        const mine = decoded.filter((e) => handles(p, e.event.type));
        if (mine.length > 0) all.push(...(await p.fragments!(mine)));
      }
      return all;
    },
  };
};

const decode = ({ unit, event }: UnitNewEvent): UnitEvent => {
  const decoded = eventRegistry.decode(event.type, event.schema_version, event.data);
  if (E.isLeft(decoded)) throw new Error(`inline projection, event ${event.event_id}: ${decoded.left}`);
  return { unit, event: decoded.right };
};
