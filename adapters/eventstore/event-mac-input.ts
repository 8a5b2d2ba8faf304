import type { NewEvent } from '../../domain/ports/event-store.ts';
import { canonicalJson } from '../../domain/shared/hash.ts';

/**
 * The bytes an event's MAC covers: its stream (so it cannot be moved), its id (unique in the
 * log, so it cannot be copied), type, codec version, data and who it names as tenant, cause
 * and correlation. Canonical JSON, so the stored form (JSONB reorders keys) checks the same.
 */
export const eventMacInput = (stream: string, e: Pick<NewEvent, 'event_id' | 'type' | 'schema_version' | 'data' | 'metadata'>): string =>
  canonicalJson([
    'custodian-event/1',
    stream,
    e.event_id,
    e.type,
    e.schema_version,
    e.metadata.tenant,
    e.metadata.causation_id ?? null,
    e.metadata.correlation_id ?? null,
    e.data,
  ]);
