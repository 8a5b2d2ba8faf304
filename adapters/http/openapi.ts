import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import { createJsonSchemaTransform, createJsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { ZodType } from 'zod';
import { RESERVED_KEYS } from './hygiene.ts';
import { JSON_VALUE_REF } from './json-value.ts';

/**
 * How the route schemas (zod) become /openapi.json. Named schemas (zod's registry: the JSON
 * value, the refusal) are components the operations refer to. The rules the hygiene layer
 * enforces on every body, query string and path are written into each request schema: no
 * text holds U+0000, no key is one of the reserved three, no number lies beyond ±(2^53 − 1).
 */

type Json = Record<string, unknown>;

const NO_NUL = '^[^\\u0000]*$';
const SAFE = Number.MAX_SAFE_INTEGER;

/**
 * Writes the hygiene rules into one request schema (in place, walked with an explicit stack):
 * text without U+0000, numbers within ±(2^53 − 1), keys other than the reserved three. A
 * schema that already says more (a pattern, a format, an enum, bounds) is left as it is. The
 * walk follows properties, items and combinators; `if`/`then`, `not` and the like only
 * restate fields found elsewhere.
 */
const withRequestRules = (root: unknown, { numbers }: { numbers: boolean }) => {
  const stack = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) {
      stack.push(...v);
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    const s = v as Json;
    if (s.type === 'string' && s.pattern === undefined && s.format === undefined && s.enum === undefined && s.const === undefined) s.pattern = NO_NUL;
    // Bodies only: a query string's number is text, read by its own rule.
    if (numbers && (s.type === 'number' || s.type === 'integer')) {
      if (s.minimum === undefined && s.exclusiveMinimum === undefined) s.minimum = -SAFE;
      if (s.maximum === undefined && s.exclusiveMaximum === undefined) s.maximum = SAFE;
    }
    // An object that takes fields beyond those it names takes any JSON there.
    if (s.type === 'object' && s.properties !== undefined && s.additionalProperties === undefined) s.additionalProperties = { ...JSON_VALUE_REF };
    if (typeof s.additionalProperties === 'object' && s.additionalProperties !== null)
      s.propertyNames = { type: 'string', ...((s.propertyNames as Json | undefined) ?? {}), not: { enum: [...RESERVED_KEYS] } };
    for (const key of ['properties', 'patternProperties', '$defs'] as const)
      if (s[key] && typeof s[key] === 'object') stack.push(...Object.values(s[key] as Json));
    for (const key of ['items', 'prefixItems', 'additionalProperties', 'anyOf', 'oneOf', 'allOf', 'propertyNames'] as const) stack.push(s[key]);
  }
};

const perRoute = createJsonSchemaTransform({});
const withComponents = createJsonSchemaTransformObject({});

const isZod = (s: unknown): s is ZodType => typeof s === 'object' && s !== null && '_zod' in s;

/**
 * Per route: zod to JSON Schema, and two facts fastify-swagger cannot say, left on the
 * operation for the document pass below: a body the route may go without, and a query string
 * whose fields come in alternative sets (one parameter, an object with `oneOf`).
 */
const transform: FastifyDynamicSwaggerOptions['transform'] = (input) => {
  const out = perRoute(input) as { schema: Json; url: string };
  const schema = input.schema as Json | undefined;
  if (!schema || out.schema.hide) return out;
  const marks: Json = {};
  if (isZod(schema.body) && schema.body.safeParse(undefined).success) marks['x-optional-body'] = true;
  const query = out.schema.querystring as Json | undefined;
  if (query && (query.oneOf !== undefined || query.anyOf !== undefined)) {
    marks['x-query-object'] = query;
    delete out.schema.querystring;
  }
  return { ...out, schema: { ...out.schema, ...marks } };
};

const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options'] as const;

/** Every `$ref` under a value, walked with an explicit stack. */
const refsIn = (value: unknown): Set<string> => {
  const refs = new Set<string>();
  const stack = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) stack.push(...v);
    else if (typeof v === 'object' && v !== null)
      for (const [k, x] of Object.entries(v)) {
        if (k === '$ref' && typeof x === 'string') refs.add(x);
        else stack.push(x);
      }
  }
  return refs;
};

/** Keeps the component schemas the paths reach (directly or through another component), and only those. */
const reachable = (doc: Json): Json => {
  const components = (doc.components ?? {}) as Json;
  const schemas = (components.schemas ?? {}) as Record<string, unknown>;
  const prefix = '#/components/schemas/';
  const kept = new Set<string>();
  const todo = [...refsIn(doc.paths)];
  while (todo.length > 0) {
    const ref = todo.pop()!;
    const name = ref.startsWith(prefix) ? ref.slice(prefix.length) : null;
    if (name === null || kept.has(name) || !(name in schemas)) continue;
    kept.add(name);
    todo.push(...refsIn(schemas[name]));
  }
  const only = Object.fromEntries(Object.entries(schemas).filter(([name]) => kept.has(name)));
  return { ...doc, components: { ...components, schemas: only } };
};

/** The whole document: components from zod's registry, the marks above applied, unused components left out. */
const transformObject: FastifyDynamicSwaggerOptions['transformObject'] = (input) => {
  const doc = withComponents(input) as Json;
  for (const item of Object.values((doc.paths ?? {}) as Record<string, Json>))
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      const body = op.requestBody as Json | undefined;
      if (op['x-optional-body'] === true && body) body.required = false;
      for (const media of Object.values((body?.content ?? {}) as Record<string, Json>)) withRequestRules(media.schema, { numbers: true });
      delete op['x-optional-body'];
      const query = op['x-query-object'];
      if (query) {
        const others = ((op.parameters ?? []) as Json[]).filter((p) => p.in !== 'query');
        op.parameters = [...others, { name: 'query', in: 'query', required: true, style: 'form', explode: true, schema: query }];
        delete op['x-query-object'];
      }
      for (const p of (op.parameters ?? []) as Json[]) withRequestRules(p.schema, { numbers: false });
    }
  // A request's named schemas (zod's input side, `…Input`) follow the same rules.
  const schemas = ((doc.components as Json | undefined)?.schemas ?? {}) as Record<string, unknown>;
  for (const [name, schema] of Object.entries(schemas)) if (name.endsWith('Input')) withRequestRules(schema, { numbers: true });
  return reachable(doc) as ReturnType<NonNullable<FastifyDynamicSwaggerOptions['transformObject']>>;
};

/** The options @fastify/swagger is registered with. */
export const openapiTransforms = { transform, transformObject } as const;
