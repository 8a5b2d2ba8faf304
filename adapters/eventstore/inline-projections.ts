import { applyEvent } from '../../projections/runner.ts';
import type { Projection } from '../../projections/projection.ts';
import type { InlineProjections } from './postgres-group-commit.ts';

/**
 * The event types each model that may run inline reads. (When projections declare what they
 * handle themselves, this table goes.)
 */
const HANDLED: Readonly<Record<string, readonly string[]>> = {
  records: ['RecordVersionWritten', 'RecordRemoved'],
  'dedupe-digests': ['RecordVersionWritten', 'RecordRemoved'],
  retention: ['RecordVersionWritten', 'RecordRemoved', 'RenewalRequested', 'HoldPlaced', 'HoldReleased'],
};

/**
 * Projections applied inside the append's transaction, in append order. `custodian rebuild`
 * still rebuilds them from the log like any other.
 */
export const inlineProjections = (projections: readonly Projection[]): InlineProjections => {
  const types = new Set<string>();
  for (const p of projections) {
    const handled = HANDLED[p.name];
    if (!handled) throw new Error(`projection ${p.name} cannot run inline: the events it reads are not declared`);
    handled.forEach((t) => types.add(t));
  }
  return {
    handles: (type) => types.has(type),
    async apply(sql, events) {
      for (const e of events) for (const p of projections) await applyEvent(p, sql, e);
    },
  };
};
