import { z } from 'zod';

/** Any JSON value, as a request may carry it (a record's body, a job's input). */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * One named schema that refers to itself. Named in zod's registry, /openapi.json shows it once
 * as a component and refers to it there; a nameless recursive schema would be referred to
 * under a name the document never defines.
 */
export const JsonValue: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(JsonValue), z.record(z.string(), JsonValue)]),
);
z.globalRegistry.add(JsonValue, { id: 'JsonValue', description: 'any JSON value' });

/** Where a request schema refers to it (fastify-type-provider-zod names a request's side of a component `…Input`). */
export const JSON_VALUE_REF = { $ref: '#/components/schemas/JsonValueInput' } as const;
