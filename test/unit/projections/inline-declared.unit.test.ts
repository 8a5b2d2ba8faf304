import { describe, expect, it } from 'vitest';
import { inlineProjections } from '../../../adapters/eventstore/inline-projections.ts';
import type { Sealer } from '../../../domain/ports/sealer.ts';
import { allProjections } from '../../../projections/all.ts';
import type { Projection } from '../../../projections/projection.ts';

const unused = () => {
  throw new Error('nothing is sealed or opened here');
};
const noSealing: Sealer = { seal: unused, open: unused, dedupeDigest: unused };
const projections = allProjections({ sealer: noSealing });

const model = (name: string, canHandle?: readonly string[]): Projection => ({
  name,
  order: 'stream',
  tables: [],
  ...(canHandle ? { canHandle } : {}),
  inline: true,
  apply: async () => undefined,
  fragments: async () => [],
});

describe('inline projections are declared by the projections themselves', () => {
  it("the models written with a put's append are the ones a put's answer promises: records, dedupe digests, retention", () => {
    expect(projections.filter((p) => p.inline).map((p) => p.name)).toEqual(['records', 'dedupe-digests', 'retention']);
  });

  it('an inline model reads exactly the event types its own canHandle names', () => {
    const byName = new Map(projections.map((p) => [p.name, new Set(p.canHandle)]));
    expect(byName.get('records')).toEqual(new Set(['RecordVersionWritten', 'RecordRemoved']));
    expect(byName.get('dedupe-digests')).toEqual(new Set(['RecordVersionWritten', 'RecordRemoved']));
    expect(byName.get('retention')).toEqual(new Set(['RecordVersionWritten', 'RecordRemoved', 'RenewalRequested', 'HoldPlaced', 'HoldReleased']));
  });

  it("the append's transaction reads the events of the union of the inline models' canHandle, and no other", () => {
    const inline = inlineProjections([model('a', ['X', 'Y']), model('b', ['Y', 'Z'])]);
    expect(['X', 'Y', 'Z', 'W'].filter((t) => inline.handles(t))).toEqual(['X', 'Y', 'Z']);
  });

  it('a model that does not name what it reads, or cannot say a batch as fragments, cannot run inline', () => {
    expect(() => inlineProjections([model('everything')])).toThrow(/everything cannot run inline/);
    const { fragments: _, ...oneByOne } = model('one-by-one', ['X']);
    expect(() => inlineProjections([oneByOne])).toThrow(/one-by-one cannot run inline/);
  });
});
