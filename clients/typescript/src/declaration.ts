import { COLLECTION_NAME, FIELD_NAME, RECORD_LIMITS, RESERVED_FIELD_NAMES } from './limits.ts';

/** One collection as declared: its people fields (values naming a person) and its queried fields. */
export interface CollectionDeclaration {
  readonly name: string;
  readonly people: readonly string[];
  readonly fields: readonly string[];
}

export interface Declared {
  readonly people: readonly string[];
  readonly fields: readonly string[];
}

/** A declaration refused: the refusal's code and a message that says what to change. */
export type DeclarationRefusal = { readonly error: 'invalid'; readonly message: string };

const refusal = (wrong: string, change: string): DeclarationRefusal => ({ error: 'invalid', message: `records: ${wrong}: ${change}` });

/** Merges a declaration: nothing declared before is ever taken away; a name in `people` is a person field. */
export const mergeDeclaration = (
  current: Declared | undefined,
  people: readonly string[],
  fields: readonly string[],
): { people: string[]; fields: string[] } => {
  const p = [...(current?.people ?? [])];
  const f = [...(current?.fields ?? [])];
  for (const name of people) if (!p.includes(name)) p.push(name);
  for (const name of fields) if (!f.includes(name) && !p.includes(name)) f.push(name);
  return { people: p, fields: f.filter((n) => !p.includes(n)) };
};

/**
 * Every limit of a declaration, checked on what it merges into (`before`, the collections
 * declared so far): a declaration that breaks one is refused whole. The SDK checks it before
 * sending, the service again on what it keeps, with this one function.
 */
export const declarationRefusal = (before: ReadonlyMap<string, Declared>, collections: readonly CollectionDeclaration[]): DeclarationRefusal | null => {
  const names = new Set<string>();
  const merged = new Map(before);
  for (const c of collections) {
    if (!COLLECTION_NAME.test(c.name))
      return refusal(`collection name ${JSON.stringify(c.name)} is not allowed`, 'start with a letter, then up to 63 letters, digits, - or _');
    if (names.has(c.name)) return refusal(`collection ${c.name} is declared twice`, 'declare it once');
    names.add(c.name);
    const listed = new Set<string>();
    for (const field of [...c.people, ...c.fields]) {
      if (!FIELD_NAME.test(field)) return refusal(`${c.name} field ${JSON.stringify(field)} is not allowed`, 'use a top-level name of letters, digits and _');
      if (RESERVED_FIELD_NAMES.has(field)) return refusal(`${c.name} field ${field} is a reserved key no value can hold`, 'rename the field');
      if (listed.has(field)) return refusal(`${c.name} lists ${field} twice`, 'list it once, in people or in fields');
      listed.add(field);
    }
    const m = mergeDeclaration(merged.get(c.name), c.people, c.fields);
    const count = m.people.length + m.fields.length;
    if (count > RECORD_LIMITS.fieldsPerCollection)
      return refusal(
        `${c.name} declares ${count} fields`,
        `declare at most ${RECORD_LIMITS.fieldsPerCollection}, people and fields together (fields declared before stay declared)`,
      );
    merged.set(c.name, m);
  }
  if (merged.size > RECORD_LIMITS.collectionsPerAgent)
    return refusal(`${merged.size} collections declared`, `declare at most ${RECORD_LIMITS.collectionsPerAgent} (collections declared before stay declared)`);
  return null;
};
