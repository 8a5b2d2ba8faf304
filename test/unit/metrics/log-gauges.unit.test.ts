import { randomUUID } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import type { EventStore, NewEvent } from '../../../domain/ports/event-store.ts';
import { memoryEventStore } from '../../../adapters/eventstore/memory.ts';
import { instrumentedEventStore } from '../../../adapters/eventstore/instrumented.ts';
import { createMetrics } from '../../../adapters/metrics/registry.ts';
import { registerLogGauges } from '../../../adapters/metrics/log-gauges.ts';
import { parsePrometheus, sample } from '../../support/prometheus.ts';

const event = (type: string): NewEvent => ({
  event_id: randomUUID(),
  type,
  schema_version: 1,
  data: {},
  metadata: { tenant: 'acme', causation_id: null, correlation_id: null },
});

/** A memory store whose events read back as recorded a minute ago: lag in seconds without waiting. */
const aMinuteOld = (inner: EventStore): EventStore => ({
  ...inner,
  readAll: async (after, options) => (await inner.readAll(after, options)).map((e) => ({ ...e, recorded_at: e.recorded_at - 60_000 })),
});

const scrape = async (metrics: ReturnType<typeof createMetrics>) => parsePrometheus(await metrics.registry.metrics());

describe('log gauges, computed on scrape', () => {
  it('given a log of 5 events, when one projection applied 2 and another all 5, then lag is 3 events and a minute for the first and 0 for the second', async () => {
    const metrics = createMetrics();
    const store = aMinuteOld(memoryEventStore());
    for (let i = 0; i < 5; i++) await store.append(`s-${i}`, [event('Happened')], 'no_stream');
    registerLogGauges(metrics, { store, checkpoints: () => ({ slow: 2, quick: 5 }), auditTreeSize: async () => 7 });

    const samples = await scrape(metrics);
    expect(sample(samples, 'custodian_log_head_position')).toBe(5);
    expect(sample(samples, 'custodian_projection_position', { projection: 'slow' })).toBe(2);
    expect(sample(samples, 'custodian_projection_lag_events', { projection: 'slow' })).toBe(3);
    expect(sample(samples, 'custodian_projection_lag_seconds', { projection: 'slow' })).toBeGreaterThanOrEqual(60);
    expect(sample(samples, 'custodian_projection_lag_events', { projection: 'quick' })).toBe(0);
    expect(sample(samples, 'custodian_projection_lag_seconds', { projection: 'quick' })).toBe(0);
    expect(sample(samples, 'custodian_audit_tree_size')).toBe(7);
    expect(samples.some((s) => s.name.startsWith('custodian_relay_'))).toBe(false);
  });

  it('given a relay at position 1 of 4, then its lag is 3 events and a minute; caught up, 0', async () => {
    const metrics = createMetrics();
    const store = aMinuteOld(memoryEventStore());
    for (let i = 0; i < 4; i++) await store.append(`s-${i}`, [event('Happened')], 'no_stream');
    let relayed = 1;
    registerLogGauges(metrics, { store, checkpoints: () => ({}), relay: { topic: 'custodian.events', position: () => relayed }, auditTreeSize: async () => 0 });

    let samples = await scrape(metrics);
    expect(sample(samples, 'custodian_relay_position', { topic: 'custodian.events' })).toBe(1);
    expect(sample(samples, 'custodian_relay_lag_events', { topic: 'custodian.events' })).toBe(3);
    expect(sample(samples, 'custodian_relay_lag_seconds', { topic: 'custodian.events' })).toBeGreaterThanOrEqual(60);
    relayed = 4;
    samples = await scrape(metrics);
    expect(sample(samples, 'custodian_relay_lag_events', { topic: 'custodian.events' })).toBe(0);
    expect(sample(samples, 'custodian_relay_lag_seconds', { topic: 'custodian.events' })).toBe(0);
  });
});

describe('the instrumented event store', () => {
  it('counts appended events by type and times each append; a refused append counts no event', async () => {
    const metrics = createMetrics();
    const store = instrumentedEventStore(memoryEventStore(), metrics);
    expect(E.isRight(await store.append('a', [event('Opened'), event('Noted')], 'no_stream'))).toBe(true);
    expect(E.isRight(await store.append('a', [event('Noted')], 1))).toBe(true);
    expect(E.isLeft(await store.append('a', [event('Noted')], 0))).toBe(true);

    const samples = await scrape(metrics);
    expect(sample(samples, 'custodian_events_appended_total', { type: 'Opened' })).toBe(1);
    expect(sample(samples, 'custodian_events_appended_total', { type: 'Noted' })).toBe(2);
    expect(sample(samples, 'custodian_append_duration_seconds_count')).toBe(3);
  });

  it('keeps every method of the store it wraps, optional ones included', async () => {
    const inner = { ...memoryEventStore(), committedHead: async () => 42, guardAlone: async () => true };
    const store = instrumentedEventStore(inner, createMetrics());
    expect(await store.committedHead()).toBe(42);
    expect(await store.guardAlone()).toBe(true);
    for (const key of Object.keys(inner)) expect(typeof (store as Record<string, unknown>)[key]).toBe(typeof (inner as Record<string, unknown>)[key]);
  });
});
