import { refusal, type Refusal } from '../../domain/shared/refusal.ts';

/**
 * A schema error (zod) as a refusal that says what to change: the field at fault, the
 * existing `reason`, a `message` sentence, and for an unknown field the fields allowed there
 * (`allowed`) — with a hint when the field belongs one level down (`list` options given at
 * the top level: "put them under list"). The schema is walked along the issue's path with the
 * data, so a union picks the member the data names (`op: "list"` → the list request).
 */
export interface SchemaIssue {
  readonly code: string;
  readonly path: readonly PropertyKey[];
  readonly message: string;
  readonly keys?: readonly string[];
  readonly expected?: unknown;
  readonly values?: readonly unknown[];
  readonly origin?: string;
  readonly maximum?: unknown;
  readonly minimum?: unknown;
  readonly discriminator?: string;
  /** A discriminated union's values, as zod names them when none matched. */
  readonly options?: readonly unknown[];
  readonly note?: string;
}

// zod's internals, as far as this walk reads them.
interface Def {
  readonly type: string;
  readonly shape?: Record<string, Node>;
  readonly innerType?: Node;
  readonly in?: Node;
  readonly out?: Node;
  readonly options?: readonly Node[];
  readonly valueType?: Node;
  readonly element?: Node;
  readonly values?: readonly unknown[];
  readonly entries?: Record<string, unknown>;
  readonly getter?: () => Node;
}
interface Node {
  readonly _zod?: { readonly def: Def };
}

const defOf = (s: unknown): Def | undefined => (s as Node | undefined)?._zod?.def;
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional']);

/** The schema with its wrappers (optional, default, pipe, lazy) taken off. */
const unwrap = (s: unknown): Node | undefined => {
  let node = s as Node | undefined;
  for (let i = 0; i < 16; i++) {
    const def = defOf(node);
    if (!def) return node;
    if (WRAPPERS.has(def.type) && def.innerType) node = def.innerType;
    else if (def.type === 'pipe' && def.in) node = defOf(def.in)?.type === 'transform' ? def.out : def.in;
    else if (def.type === 'lazy' && def.getter) node = def.getter();
    else return node;
  }
  return node;
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Of a union's members, the object the data names by its literal fields (a discriminator), else the first. */
const memberFor = (options: readonly Node[], data: unknown): Node | undefined => {
  const objects = options.map(unwrap).filter((o) => defOf(o)?.type === 'object');
  const named = objects.find((o) =>
    Object.entries(defOf(o)!.shape ?? {}).some(([k, f]) => {
      const d = defOf(unwrap(f));
      return d?.type === 'literal' && isObject(data) && (d.values ?? []).includes(data[k]);
    }),
  );
  return named ?? objects[0] ?? unwrap(options[0]);
};

/** The object schema that holds the data at `path` (unions resolved by the data). */
const schemaAt = (schema: unknown, path: readonly PropertyKey[], data: unknown, resolveLast = true): Node | undefined => {
  let node = unwrap(schema);
  let value = data;
  for (let i = 0; ; i++) {
    if (i === path.length && !resolveLast) return node;
    const def = defOf(node);
    if (def?.type === 'union' && def.options) node = memberFor(def.options, value);
    if (i === path.length) return node;
    const key = path[i]!;
    const d = defOf(node);
    if (!d) return undefined;
    if (d.type === 'object') node = unwrap(d.shape?.[String(key)]);
    else if (d.type === 'record') node = unwrap(d.valueType);
    else if (d.type === 'array') node = unwrap(d.element);
    else return undefined;
    value = isObject(value) || Array.isArray(value) ? (value as Record<string, unknown>)[String(key)] : undefined;
  }
};

const valueAt = (data: unknown, path: readonly PropertyKey[]): unknown =>
  path.reduce<unknown>((v, k) => (isObject(v) || Array.isArray(v) ? (v as Record<string, unknown>)[String(k)] : undefined), data);

/** How a value reads in a sentence. */
const described = (v: unknown): string =>
  v === undefined
    ? 'missing'
    : v === null
      ? 'null'
      : Array.isArray(v)
        ? 'a list'
        : typeof v === 'string'
          ? 'text'
          : typeof v === 'number'
            ? `the number ${v}`
            : typeof v === 'boolean'
              ? `${v}`
              : 'an object';

const WANTED: Readonly<Record<string, string>> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  bigint: 'a whole number',
  boolean: 'true or false',
  object: 'a JSON object',
  record: 'a JSON object',
  map: 'a JSON object',
  array: 'a list',
  tuple: 'a list',
  null: 'null',
  literal: 'the value shown in the reference',
};
const wanted = (expected: unknown) => WANTED[String(expected)] ?? String(expected);

/** What a union member accepts, for "text, a number, true or false or null". */
const formsOf = (node: Node | undefined): string | null => {
  const def = defOf(node);
  if (def?.type !== 'union' || !def.options) return null;
  const forms = [...new Set(def.options.map((o) => wanted(defOf(unwrap(o))?.type)))];
  return forms.length > 1 ? `${forms.slice(0, -1).join(', ')} or ${forms.at(-1)}` : (forms[0] ?? null);
};

const list = (names: readonly string[]) => names.join(', ');

/** "limit", "list.limit", "where.city", "querystring.since": the path the caller wrote. */
const fieldName = (root: readonly string[], path: readonly PropertyKey[]) => [...root, ...path.map(String)].join('.');

const unknownField = (issue: SchemaIssue, schema: unknown, data: unknown, root: readonly string[]): Refusal => {
  const keys = issue.keys?.length ? issue.keys : [''];
  const holder = schemaAt(schema, issue.path, data);
  const shape = defOf(holder)?.shape ?? {};
  const allowed = Object.keys(shape);
  const field = fieldName(root, [...issue.path, keys[0]!]);
  const fields = keys.map((k) => fieldName(root, [...issue.path, k]));
  // Fields of one of this object's own objects, written a level too high (`limit` beside `op`).
  const childShape = (k: string) => (defOf(unwrap(shape[k]))?.type === 'object' ? (defOf(unwrap(shape[k]))!.shape ?? {}) : null);
  const belongs = (child: Record<string, Node>, k: string) => Object.hasOwn(child, k) || Object.hasOwn(child, `${k}s`);
  const home = allowed.find((k) => {
    const c = childShape(k);
    return c !== null && keys.some((key) => belongs(c, key));
  });
  const where = issue.path.length === 0 ? (root.length === 0 ? 'the body' : root.join('.')) : fieldName(root, issue.path);
  const what = fields.length === 1 ? `${fields[0]} is not a field of ${where}` : `${list(fields)} are not fields of ${where}`;
  const hint = home ? `; ${home} options go under "${home}": put them under ${home}, as {"${home}": {…}}` : '';
  const message = `${what}${hint}; ${allowed.length === 0 ? 'send no fields there' : `the fields allowed there are ${list(allowed)}`}`;
  return refusal('invalid', { field, reason: 'unknown field', allowed, message });
};

const sizeMessage = (issue: SchemaIssue, field: string, value: unknown): string => {
  const bound = issue.code === 'too_big' ? issue.maximum : issue.minimum;
  const side = issue.code === 'too_big' ? 'at most' : 'at least';
  const unit =
    issue.origin === 'string' ? ' characters' : issue.origin === 'array' || issue.origin === 'set' ? ' items' : issue.origin === 'object' ? ' fields' : '';
  const has =
    typeof value === 'string'
      ? `${value.length} characters`
      : Array.isArray(value)
        ? `${value.length} items`
        : typeof value === 'number'
          ? String(value)
          : described(value);
  return `${field} is ${has}: send ${side} ${String(bound)}${unit}`;
};

/** The refusal of one schema issue. `root` prefixes the field outside a body (`querystring`). */
export const refusalOfIssue = (issue: SchemaIssue, schema: unknown, data: unknown, root: readonly string[] = []): Refusal => {
  if (issue.code === 'unrecognized_keys') return unknownField(issue, schema, data, root);
  const value = valueAt(data, issue.path);
  const field = fieldName(root, issue.path) || 'body';
  const base = { field, reason: issue.message };
  const say = (message: string) => refusal('invalid', { ...base, message });
  switch (issue.code) {
    case 'invalid_type':
      if (issue.path.length === 0 && root.length === 0) return say(`the body is ${described(value)}: send a JSON object`);
      return say(
        value === undefined ? `${field} is missing: give ${wanted(issue.expected)}` : `${field} is ${described(value)}: send ${wanted(issue.expected)}`,
      );
    case 'invalid_union': {
      if (issue.discriminator !== undefined || issue.note === 'No matching discriminator') {
        // The union itself (not the member the data would pick): its members' values are the allowed ones.
        const holder = schemaAt(schema, issue.path.slice(0, -1), data, false);
        const key = issue.discriminator ?? String(issue.path.at(-1));
        const fromSchema = defOf(holder)?.options?.map((o) => defOf(unwrap(defOf(unwrap(o))?.shape?.[key]))?.values?.[0]);
        const names = (issue.options ?? fromSchema ?? []).filter((v) => v !== undefined).map((v) => JSON.stringify(v));
        return say(`${field} is ${described(value)}: send one of ${names.length > 0 ? list(names) : 'the values in the reference'}`);
      }
      const forms = formsOf(schemaAt(schema, issue.path, data, false));
      return say(`${field} is ${described(value)}: send ${forms ?? 'one of the forms in the reference'}`);
    }
    case 'invalid_value':
      return say(`${field} is ${described(value)}: send one of ${list((issue.values ?? []).map((v) => JSON.stringify(v)))}`);
    case 'too_big':
    case 'too_small':
      return say(sizeMessage(issue, field, value));
    case 'invalid_format':
    case 'custom':
    default:
      return say(`${field}: ${issue.message}`);
  }
};
