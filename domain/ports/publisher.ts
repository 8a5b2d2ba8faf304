import type { RecordedEvent } from './event-store.ts';

/**
 * Where committed events go beyond the store (a Kafka topic). `publish` resolves only once
 * the bus holds every event given, in the order given for each stream.
 */
export interface Publisher {
  readonly name: string;
  publish(events: readonly RecordedEvent[]): Promise<void>;
  close(): Promise<void>;
}
