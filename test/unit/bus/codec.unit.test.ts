import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeEvent, encodeEvent } from '../../../adapters/bus/kafka/codec.ts';
import type { RecordedEvent } from '../../../domain/ports/event-store.ts';

const json = fc.jsonValue({ maxDepth: 3 });
const recorded: fc.Arbitrary<RecordedEvent> = fc.record({
  event_id: fc.uuid(),
  type: fc.string({ minLength: 1, maxLength: 30 }),
  schema_version: fc.integer({ min: 1, max: 9 }),
  data: json,
  metadata: fc.record({ tenant: fc.string(), causation_id: fc.option(fc.string(), { nil: null }), correlation_id: fc.option(fc.string(), { nil: null }) }),
  stream: fc.string({ minLength: 1, maxLength: 60 }),
  revision: fc.nat(),
  position: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  recorded_at: fc.nat(),
});

describe('bus codec', () => {
  it('given any recorded event, when encoded and decoded, then it is the same event, keyed by its stream', () => {
    fc.assert(
      fc.property(recorded, (e) => {
        const m = encodeEvent(e);
        expect(m.key).toBe(e.stream);
        expect(m.headers.position).toBe(String(e.position));
        const d = decodeEvent(Buffer.from(m.key), Buffer.from(m.value));
        // JSON drops -0 and undefined the same way the store's jsonb does.
        expect(d).toEqual({ ok: true, event: JSON.parse(JSON.stringify(e)) });
      }),
    );
  });

  it('given any bytes at all, when decoded, then it answers a reason instead of throwing', () => {
    fc.assert(
      fc.property(fc.option(fc.uint8Array({ maxLength: 200 }), { nil: null }), fc.option(fc.string(), { nil: null }), (value, key) => {
        const d = decodeEvent(key, value === null ? null : Buffer.from(value));
        if (!d.ok) expect(d.error.length).toBeGreaterThan(0);
      }),
    );
  });

  it('refuses a message whose key is not its stream, an unknown envelope version and unknown fields', () => {
    const e: RecordedEvent = {
      event_id: 'e1',
      type: 'T',
      schema_version: 1,
      data: { a: 1 },
      metadata: { tenant: 't', causation_id: null, correlation_id: null },
      stream: 's',
      revision: 0,
      position: 1,
      recorded_at: 0,
    };
    const m = encodeEvent(e);
    expect(decodeEvent('other', m.value)).toEqual({ ok: false, error: "key is not the event's stream" });
    expect(decodeEvent(null, m.value).ok).toBe(false);
    expect(decodeEvent('s', JSON.stringify({ ...JSON.parse(m.value), v: 2 })).ok).toBe(false);
    expect(decodeEvent('s', JSON.stringify({ ...JSON.parse(m.value), extra: true })).ok).toBe(false);
    expect(decodeEvent('s', JSON.stringify({ ...JSON.parse(m.value), position: 0 })).ok).toBe(false);
    expect(decodeEvent('s', 'not json')).toEqual({ ok: false, error: 'value is not JSON' });
    expect(decodeEvent('s', m.value)).toEqual({ ok: true, event: e });
  });
});
