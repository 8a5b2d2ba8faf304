import type { DomainEvent } from '../domain/events/registry.ts';
import type { RecordedEvent } from '../domain/ports/event-store.ts';
import type { Sql } from '../domain/ports/read-model.ts';

/**
 * A read model built from the log. `schema` is idempotent DDL; `tables` are emptied on
 * rebuild. `apply` runs inside the runner's transaction, beside the checkpoint update.
 *
 * `order` says what order the model needs: `stream` when each row is built from one stream's
 * events (so any interleaving that keeps each stream's order builds the same rows — a Kafka
 * consumer group can build it partition by partition); `log` when it needs the global order.
 */
export interface Projection {
  readonly name: string;
  readonly order: 'stream' | 'log';
  readonly schema: string;
  readonly tables: readonly string[];
  apply(sql: Sql, event: DomainEvent, recorded: RecordedEvent): Promise<void>;
}
