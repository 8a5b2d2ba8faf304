import type { DomainEvent } from '../domain/events/registry.ts';
import type { RecordedEvent } from '../domain/ports/event-store.ts';
import type { Sql } from '../domain/ports/read-model.ts';

/**
 * A read model built from the log. `schema` is idempotent DDL; `tables` are emptied on
 * rebuild. `apply` runs inside the runner's transaction, beside the checkpoint update.
 */
export interface Projection {
  readonly name: string;
  readonly schema: string;
  readonly tables: readonly string[];
  apply(sql: Sql, event: DomainEvent, recorded: RecordedEvent): Promise<void>;
}
