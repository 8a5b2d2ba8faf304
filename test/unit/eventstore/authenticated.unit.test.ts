import { randomBytes, randomUUID } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { authenticatedEventStore } from '../../../adapters/eventstore/authenticated.ts';
import { eventMacKeys } from '../../../adapters/eventstore/event-macs.ts';
import { memoryEventStore } from '../../../adapters/eventstore/memory.ts';
import { TAMPERED_EVENT, type NewEvent, type RecordedEvent } from '../../../domain/ports/event-store.ts';

const event = (n: number): NewEvent => ({
  event_id: randomUUID(),
  type: 'Noted',
  schema_version: 1,
  data: { tenant: 'acme', n, nested: { b: 2, a: [1, 'x'] } },
  metadata: { tenant: 'acme', causation_id: null, correlation_id: 'c' },
});

const given = async (count: number) => {
  const raw = memoryEventStore();
  const store = authenticatedEventStore(raw, eventMacKeys(randomBytes(32)));
  const appended = await store.append(
    's',
    Array.from({ length: count }, (_, i) => event(i)),
    'no_stream',
  );
  expect(E.isRight(appended)).toBe(true);
  // The memory store hands back its own rows: editing them is editing the stored log.
  const stored = (await raw.readStream('s')) as RecordedEvent[];
  return { raw, store, stored };
};

describe('the authenticated event store', () => {
  it('reads back what it appended, each event with a MAC, whatever order the stored data keys take', async () => {
    const { store, stored } = await given(3);
    expect(stored.every((r) => typeof r.metadata.mac === 'string')).toBe(true);
    // A store that reorders keys (JSONB) checks the same: the MAC covers canonical JSON.
    const first = stored[0]!;
    (first as { data: unknown }).data = { nested: { a: [1, 'x'], b: 2 }, n: 0, tenant: 'acme' };
    const read = await store.readStream('s');
    expect(read.map((r) => r.type)).toEqual(['Noted', 'Noted', 'Noted']);
    expect((await store.readAll(0)).map((r) => r.type)).toEqual(['Noted', 'Noted', 'Noted']);
  });

  it('reads an edited event as tampered, in the stream and in the log', async () => {
    const { store, stored } = await given(3);
    (stored[1] as { data: unknown }).data = { tenant: 'acme', n: 99, nested: { b: 2, a: [1, 'x'] } };
    const read = await store.readStream('s');
    expect(read.map((r) => r.type)).toEqual(['Noted', TAMPERED_EVENT, 'Noted']);
    expect(read[1]!.data).toMatchObject({ stream: 's', revision: 1, original_type: 'Noted', reason: 'the event does not match its MAC' });
    expect((await store.readAll(0)).map((r) => r.type)).toEqual(['Noted', TAMPERED_EVENT, 'Noted']);
  });

  it('reads an event whose type, metadata or MAC was changed, or that lost its MAC, as tampered', async () => {
    for (const edit of [
      (r: RecordedEvent) => Object.assign(r, { type: 'Other' }),
      (r: RecordedEvent) => Object.assign(r, { metadata: { ...r.metadata, correlation_id: 'another' } }),
      (r: RecordedEvent) => Object.assign(r, { metadata: { ...r.metadata, mac: 'ab'.repeat(32) } }),
      (r: RecordedEvent) => Object.assign(r, { metadata: { tenant: 'acme', causation_id: null, correlation_id: 'c' } }),
    ]) {
      const { store, stored } = await given(2);
      edit(stored[0]!);
      expect((await store.readStream('s')).map((r) => r.type)).toEqual([TAMPERED_EVENT, 'Noted']);
    }
  });

  it('reads an event moved to another stream, or a stream with a revision missing, as tampered', async () => {
    const { store, stored } = await given(3);
    Object.assign(stored[2]!, { stream: 'other' });
    expect((await store.readAll(0)).map((r) => r.type)).toEqual(['Noted', 'Noted', TAMPERED_EVENT]);
    // A row deleted from the middle of a stream: the next revision stands where it was.
    Object.assign(stored[1]!, { revision: 2 });
    expect((await store.readStream('s')).map((r) => r.type)).toEqual(['Noted', TAMPERED_EVENT, TAMPERED_EVENT]);
    expect((await store.readStream('s'))[1]!.data).toMatchObject({ reason: 'revision 1 is missing from the stream' });
  });

  it('a MAC made under another key does not verify', async () => {
    const raw = memoryEventStore();
    await authenticatedEventStore(raw, eventMacKeys(randomBytes(32))).append('s', [event(0)], 'no_stream');
    const other = authenticatedEventStore(raw, eventMacKeys(randomBytes(32)));
    expect((await other.readStream('s')).map((r) => r.type)).toEqual([TAMPERED_EVENT]);
  });
});
