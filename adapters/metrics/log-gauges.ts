import { Gauge } from 'prom-client';
import type { EventStore } from '../../domain/ports/event-store.ts';
import type { CustodianMetrics } from './registry.ts';

export interface LogSources {
  readonly store: EventStore;
  /** The projection runner's checkpoints (those it runs; the inline ones are written with the append). */
  readonly checkpoints: () => Readonly<Record<string, number>>;
  readonly relay?: { readonly topic: string; position(): number } | null;
  /** Leaves in every tenant's audit tree together. */
  readonly auditTreeSize: () => Promise<number>;
}

interface Snapshot {
  readonly head: number;
  /** Positions as they stood when the head was read, so one scrape's figures agree. */
  readonly checkpoints: Readonly<Record<string, number>>;
  readonly relay: number | null;
  /** Seconds since the oldest event after each behind position was recorded. */
  readonly ageAfter: ReadonlyMap<number, number>;
  readonly auditTreeSize: number;
}

/**
 * Gauges computed on scrape, so nothing runs between scrapes: the log's head, each
 * projection's and the relay's position and how far behind it is (in events, and in
 * seconds since the oldest event it has not handled was recorded), the audit tree's size.
 * One snapshot serves every gauge of a scrape (their collects run together).
 */
export const registerLogGauges = (metrics: CustodianMetrics, s: LogSources) => {
  const registers = [metrics.registry];
  let inFlight: Promise<Snapshot> | null = null;

  const take = async (): Promise<Snapshot> => {
    const checkpoints = s.checkpoints();
    const relay = s.relay ? s.relay.position() : null;
    const head = await (s.store.committedHead?.() ?? s.store.headPosition());
    const behind = new Set([...Object.values(checkpoints), ...(relay === null ? [] : [relay])].filter((p) => p < head));
    const now = Date.now();
    const ageAfter = new Map<number, number>();
    for (const p of behind) {
      const next = (await s.store.readAll(p, { limit: 1 }))[0];
      if (next) ageAfter.set(p, Math.max(0, (now - next.recorded_at) / 1000));
    }
    return { head, checkpoints, relay, ageAfter, auditTreeSize: await s.auditTreeSize() };
  };
  const snapshot = () => {
    inFlight ??= take().finally(() => {
      inFlight = null;
    });
    return inFlight;
  };

  const gauge = (
    name: string,
    help: string,
    labelNames: readonly string[],
    read: (snap: Snapshot, set: (labels: Record<string, string>, value: number) => void) => void,
  ) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers,
      async collect() {
        const snap = await snapshot();
        read(snap, (labels, value) => this.set(labels, value));
      },
    });
  const perProjection =
    (value: (snap: Snapshot, position: number) => number) => (snap: Snapshot, set: (labels: Record<string, string>, value: number) => void) => {
      for (const [projection, position] of Object.entries(snap.checkpoints)) set({ projection }, value(snap, position));
    };
  const lagEvents = (snap: Snapshot, position: number) => Math.max(0, snap.head - position);
  const lagSeconds = (snap: Snapshot, position: number) => snap.ageAfter.get(position) ?? 0;

  gauge('custodian_log_head_position', 'Position of the newest committed event in the log', [], (snap, set) => set({}, snap.head));
  gauge(
    'custodian_projection_position',
    'Last log position each projection applied',
    ['projection'],
    perProjection((_snap, position) => position),
  );
  gauge('custodian_projection_lag_events', 'Events in the log a projection has not applied yet', ['projection'], perProjection(lagEvents));
  gauge(
    'custodian_projection_lag_seconds',
    'Seconds since the oldest event a projection has not applied was recorded (0 when caught up)',
    ['projection'],
    perProjection(lagSeconds),
  );
  const relay = s.relay;
  if (relay) {
    const perRelay = (value: (snap: Snapshot, position: number) => number) => (snap: Snapshot, set: (labels: Record<string, string>, value: number) => void) =>
      set({ topic: relay.topic }, value(snap, snap.relay ?? 0));
    gauge(
      'custodian_relay_position',
      'Last log position the Kafka relay published',
      ['topic'],
      perRelay((_snap, position) => position),
    );
    gauge('custodian_relay_lag_events', 'Events in the log the Kafka relay has not published yet', ['topic'], perRelay(lagEvents));
    gauge(
      'custodian_relay_lag_seconds',
      'Seconds since the oldest event the Kafka relay has not published was recorded (0 when caught up)',
      ['topic'],
      perRelay(lagSeconds),
    );
  }
  gauge('custodian_audit_tree_size', 'Leaves in the audit trees of every tenant together', [], (snap, set) => set({}, snap.auditTreeSize));
};
