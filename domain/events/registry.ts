import { makeRegistry } from './schema.ts';
import { tenantEventSchemas, type TenantEvent } from '../tenants/events.ts';
import { jobEventSchemas, type JobEvent } from '../jobs/events.ts';
import { recordEventSchemas, type RecordEvent } from '../records/events.ts';
import { retentionEventSchemas, type RetentionEvent } from '../retention/events.ts';
import { fileEventSchemas, type FileEvent } from '../files/events.ts';
import { collectionEventSchemas, type CollectionsFeatureEvent } from '../collections/events.ts';
import { auditorEventSchemas, type AuditorKeyEvent } from '../auditors/keys.ts';
import { cosignatureEventSchemas, type CosignatureEvent } from '../audit/cosignatures.ts';
import { witnessedEventSchemas, type WitnessedEvent } from '../audit/witnessed.ts';

export type DomainEvent =
  TenantEvent | JobEvent | RecordEvent | RetentionEvent | FileEvent | CollectionsFeatureEvent | AuditorKeyEvent | CosignatureEvent | WitnessedEvent;

/** Every released event type, with its current schema version and upcasters. */
export const eventRegistry = makeRegistry<DomainEvent>([
  ...tenantEventSchemas,
  ...jobEventSchemas,
  ...recordEventSchemas,
  ...retentionEventSchemas,
  ...fileEventSchemas,
  ...collectionEventSchemas,
  ...auditorEventSchemas,
  ...cosignatureEventSchemas,
  ...witnessedEventSchemas,
]);
