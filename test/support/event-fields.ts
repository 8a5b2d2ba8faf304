import type * as t from 'io-ts';
import { cosignatureEventSchemas } from '../../domain/audit/cosignatures.ts';
import { witnessedEventSchemas } from '../../domain/audit/witnessed.ts';
import { auditorEventSchemas } from '../../domain/auditors/keys.ts';
import { collectionEventSchemas } from '../../domain/collections/events.ts';
import type { EventSchema } from '../../domain/events/schema.ts';
import { fileEventSchemas } from '../../domain/files/events.ts';
import { jobEventSchemas } from '../../domain/jobs/events.ts';
import { recordEventSchemas } from '../../domain/records/events.ts';
import { retentionEventSchemas } from '../../domain/retention/events.ts';
import { tenantEventSchemas } from '../../domain/tenants/events.ts';

/** Every released event schema, in the order the registry lists them. */
export const allEventSchemas: readonly EventSchema<string, t.Mixed>[] = [
  ...tenantEventSchemas,
  ...jobEventSchemas,
  ...recordEventSchemas,
  ...retentionEventSchemas,
  ...fileEventSchemas,
  ...collectionEventSchemas,
  ...auditorEventSchemas,
  ...cosignatureEventSchemas,
  ...witnessedEventSchemas,
];

/** The top-level fields of an io-ts codec: its props, through intersections, exact and readonly wrappers. */
export const fieldsOf = (codec: unknown): string[] => {
  const c = codec as { props?: Record<string, unknown>; types?: unknown[]; type?: unknown };
  if (c.props) return Object.keys(c.props);
  if (Array.isArray(c.types)) return [...new Set(c.types.flatMap(fieldsOf))];
  if (c.type && typeof c.type === 'object') return fieldsOf(c.type);
  return [];
};
