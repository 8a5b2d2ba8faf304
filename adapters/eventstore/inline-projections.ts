import * as E from 'fp-ts/lib/Either.js';
import { eventRegistry } from '../../domain/events/registry.ts';
import type { RecordedEvent } from '../../domain/ports/event-store.ts';
import { fused, type Fragment } from '../../projections/fragments.ts';
import type { Applicable, Projection } from '../../projections/projection.ts';
import { handles } from '../../projections/runner.ts';
import type { InlineProjections } from './postgres-group-commit.ts';

/**
 * Projections applied inside the append's transaction, in append order, each given the events
 * its own `canHandle` names (as the runner would). `custodian rebuild` still rebuilds them from
 * the log like any other.
 */
export const inlineProjections = (projections: readonly Projection[]): InlineProjections => {
  const types = new Set<string>();
  for (const p of projections) {
    // A model handed every event would put a read of each into every append: it must say what it reads.
    if (!p.canHandle) throw new Error(`projection ${p.name} cannot run inline: the events it reads are not declared (canHandle)`);
    p.canHandle.forEach((t) => types.add(t));
  }
  return {
    handles: (type) => types.has(type),
    async apply(sql, events) {
      // Decoded once; then each model takes the batch's events it reads set-based (one or two
      // statements for the batch) when it can, one by one when it cannot. The models that can
      // say their batch as fragments share one statement (each writes only its own tables),
      // answered to the caller, who sends it with COMMIT in one round trip.
      const decoded = events.filter((e) => types.has(e.type)).map(decode);
      const together: Fragment[] = [];
      for (const p of projections) {
        const items = decoded.filter((a) => handles(p, a.recorded.type));
        if (items.length === 0) continue;
        const fragments = p.fragments ? await p.fragments(items) : null;
        if (fragments) together.push(...fragments);
        else if (p.applyBatch) await p.applyBatch(sql, items, { after: items[0]!.recorded.position - 1, to: items.at(-1)!.recorded.position });
        else for (const { event, recorded } of items) await p.apply(sql, event, recorded);
      }
      // The fused statement is the caller's to send, with its COMMIT.
      return together.length === 0 ? null : fused(together);
    },
  };
};

const decode = (recorded: RecordedEvent): Applicable => {
  const decoded = eventRegistry.decode(recorded.type, recorded.schema_version, recorded.data);
  if (E.isLeft(decoded)) throw new Error(`inline projection at position ${recorded.position}: ${decoded.left}`);
  return { event: decoded.right, recorded };
};
