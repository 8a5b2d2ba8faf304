import { randomUUID } from 'node:crypto';
import type { NewEvent } from '../../domain/ports/event-store.ts';

/** An event for the event-store tests: a fresh id, tenant `t`, no causation. */
export const testEvent = (type = 'Tested', data: unknown = { n: 1 }): NewEvent => ({
  event_id: randomUUID(),
  type,
  schema_version: 1,
  data,
  metadata: { tenant: 't', causation_id: null, correlation_id: null },
});
