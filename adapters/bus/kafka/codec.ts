import { z } from 'zod';
import type { RecordedEvent } from '../../../domain/ports/event-store.ts';

/**
 * A committed event on a topic: key = stream (one partition per stream, so each stream keeps
 * its order); value = the event exactly as the store holds it (sealed bodies stay sealed: the
 * bus never sees a plaintext the store did not); headers name it for tools that only route.
 * `v` versions the envelope itself.
 */
export const ENVELOPE_VERSION = 1;

const envelope = z.strictObject({
  v: z.literal(ENVELOPE_VERSION),
  event_id: z.string().min(1),
  type: z.string().min(1),
  schema_version: z.int().positive(),
  data: z.unknown(),
  metadata: z.strictObject({ tenant: z.string(), causation_id: z.string().nullable(), correlation_id: z.string().nullable(), mac: z.string().optional() }),
  stream: z.string().min(1),
  revision: z.int().nonnegative(),
  position: z.int().positive(),
  recorded_at: z.int().nonnegative(),
});

export interface BusMessage {
  readonly key: string;
  readonly value: string;
  readonly headers: Record<string, string>;
}

/** The header naming the tenant database a message was relayed from (CUSTODIAN_DATABASES); absent with one database. */
export const SOURCE_HEADER = 'database';

/** The source database a message names ('' with one database): positions are one sequence per source. */
export const sourceOf = (headers: Readonly<Record<string, Buffer | string | (Buffer | string)[] | undefined>> | undefined): string => {
  const value = headers?.[SOURCE_HEADER];
  const one = Array.isArray(value) ? value[0] : value;
  return one === undefined ? '' : one.toString();
};

export const encodeEvent = (e: RecordedEvent, source?: string): BusMessage => ({
  key: e.stream,
  value: JSON.stringify({
    v: ENVELOPE_VERSION,
    event_id: e.event_id,
    type: e.type,
    schema_version: e.schema_version,
    data: e.data,
    metadata: e.metadata,
    stream: e.stream,
    revision: e.revision,
    position: e.position,
    recorded_at: e.recorded_at,
  }),
  headers: {
    position: String(e.position),
    type: e.type,
    schema_version: String(e.schema_version),
    ...(source === undefined ? {} : { [SOURCE_HEADER]: source }),
  },
});

export type Decoded = { ok: true; event: RecordedEvent } | { ok: false; error: string };

/** Never throws: a message that is not one of ours answers why. */
export const decodeEvent = (key: Buffer | string | null, value: Buffer | string | null): Decoded => {
  if (value === null) return { ok: false, error: 'message has no value' };
  let json: unknown;
  try {
    json = JSON.parse(value.toString());
  } catch {
    return { ok: false, error: 'value is not JSON' };
  }
  const parsed = envelope.safeParse(json);
  if (!parsed.success) return { ok: false, error: `value is not an event envelope: ${parsed.error.issues[0]?.message ?? 'invalid'}` };
  const { v: _v, ...event } = parsed.data;
  if (key === null || key.toString() !== event.stream) return { ok: false, error: "key is not the event's stream" };
  return { ok: true, event };
};
