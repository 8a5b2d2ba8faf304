import { makeRegistry } from './schema.ts';
import { tenantEventSchemas, type TenantEvent } from '../tenants/events.ts';
import { jobEventSchemas, type JobEvent } from '../jobs/events.ts';

export type DomainEvent = TenantEvent | JobEvent;

/** Every released event type, with its current schema version and upcasters. */
export const eventRegistry = makeRegistry<DomainEvent>([...tenantEventSchemas, ...jobEventSchemas]);
