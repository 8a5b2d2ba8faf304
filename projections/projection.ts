import type { DomainEvent } from '../domain/events/registry.ts';
import type { RecordedEvent } from '../domain/ports/event-store.ts';
import type { Sql } from '../domain/ports/read-model.ts';
import type { Fragment, UnitEvent } from './fragments.ts';

/** A decoded event beside the log entry it came from. */
export interface Applicable {
  readonly event: DomainEvent;
  readonly recorded: RecordedEvent;
}

/** A stretch of the log: positions after `after`, up to and including `to`. */
export interface LogSpan {
  readonly after: number;
  readonly to: number;
  /**
   * More spans follow in the same transaction (a rebuild, whose `sql` runs statements one
   * after another in call order): the projection may send this span's writes and answer before
   * they finish; the next span or `settle` awaits them. Without it, applyBatch resolves once
   * everything is written.
   */
  readonly more?: boolean;
}

/**
 * A read model built from the log. Its tables are made by the database's schema
 * (`adapters/postgres/migrations/`); `tables` are emptied on rebuild. `apply` runs inside the
 * runner's transaction, beside the checkpoint update.
 *
 * `order` says what order the model needs: `stream` when each row is built from one stream's
 * events (so any interleaving that keeps each stream's order builds the same rows — a Kafka
 * consumer group can build it partition by partition); `log` when it needs the global order.
 *
 * `canHandle` names the event types the model reads: the runner decodes nothing else for it.
 * A projection that declares none is handed every event.
 *
 * `inline`: the model is written in its commit's own statement where the log can share one
 * (PostgreSQL), so an answer that promises it waits for no runner; elsewhere the runner builds
 * it like any other. An inline model names what it reads in `canHandle` and says every batch
 * of it as `fragments`.
 *
 * `applyBatch`, when present, applies consecutive events in log order with set-based
 * statements and must leave exactly what `apply` one by one would. `span` is the stretch of
 * the log the batch covers, (after, to]; `after` is 0 on a rebuild. A projection that keeps
 * state in memory between batches trusts it only when it was left at `after` (its batch may
 * have rolled back, or another runner moved the model meanwhile).
 */
export interface Projection {
  readonly name: string;
  readonly order: 'stream' | 'log';
  readonly tables: readonly string[];
  readonly canHandle?: readonly string[];
  readonly inline?: boolean;
  /**
   * Handed every span of the log, even one holding none of the events it reads (it may read
   * none: the audit integrator builds its trees from lines stored with their events).
   */
  readonly everySpan?: boolean;
  apply(sql: Sql, event: DomainEvent, recorded: RecordedEvent): Promise<void>;
  applyBatch?(sql: Sql, events: readonly Applicable[], span: LogSpan): Promise<void>;
  /**
   * An inline model's writes for a batch's events, as fragments (`fragments.ts`) sent in the
   * commit's one statement: they write only the events of the units its `committed` CTE names,
   * and leave what `apply` one event after another would.
   */
  fragments?(events: readonly UnitEvent[]): Promise<readonly Fragment[]>;
  /** Awaits the writes a span with `more` left in flight (a failure among them rejects here). */
  settle?(): Promise<void>;
}
