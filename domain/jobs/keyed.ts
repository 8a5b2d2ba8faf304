/**
 * A persistent map in buckets: setting or removing a key copies its bucket and the table of
 * buckets, never the whole map, so a fold that adds one entry per event stays linear in the
 * events (a plain object spread per event made a long job's fold quadratic). Values are
 * never mutated in place: every state a fold passed through stays as it was.
 */
export interface Keyed<V> {
  readonly size: number;
  readonly buckets: Readonly<Record<string, Readonly<Record<string, V>>>>;
}

/** Buckets of about 2^8 keys each for numbers (a step), by the first two characters for ids. */
const bucketOf = (key: string): string => (/^\d+$/.test(key) ? String(Math.floor(Number(key) / 256)) : key.slice(0, 2));

export const emptyKeyed = <V>(): Keyed<V> => ({ size: 0, buckets: {} });

export const keyedGet = <V>(m: Keyed<V>, key: string | number): V | undefined => {
  const k = String(key);
  const bucket = m.buckets[bucketOf(k)];
  return bucket && Object.hasOwn(bucket, k) ? bucket[k] : undefined;
};

export const keyedHas = <V>(m: Keyed<V>, key: string | number): boolean => keyedGet(m, key) !== undefined;

export const keyedSet = <V>(m: Keyed<V>, key: string | number, value: V): Keyed<V> => {
  const k = String(key);
  const b = bucketOf(k);
  const bucket = m.buckets[b] ?? {};
  const added = Object.hasOwn(bucket, k) ? 0 : 1;
  return { size: m.size + added, buckets: { ...m.buckets, [b]: { ...bucket, [k]: value } } };
};

export const keyedDelete = <V>(m: Keyed<V>, key: string | number): Keyed<V> => {
  const k = String(key);
  const b = bucketOf(k);
  const bucket = m.buckets[b];
  if (!bucket || !Object.hasOwn(bucket, k)) return m;
  const { [k]: _gone, ...rest } = bucket;
  const buckets = { ...m.buckets };
  if (Object.keys(rest).length === 0) delete buckets[b];
  else buckets[b] = rest;
  return { size: m.size - 1, buckets };
};

export const keyedValues = <V>(m: Keyed<V>): V[] => Object.values(m.buckets).flatMap((bucket) => Object.values(bucket));

export const keyedEntries = <V>(m: Keyed<V>): [string, V][] => Object.values(m.buckets).flatMap((bucket) => Object.entries(bucket));

/** A map built from its entries at once (a snapshot read back), without a copy per entry. */
export const keyedFrom = <V>(entries: Iterable<readonly [string | number, V]>): Keyed<V> => {
  const grouped = new Map<string, Map<string, V>>();
  for (const [key, value] of entries) {
    const k = String(key);
    const b = bucketOf(k);
    let bucket = grouped.get(b);
    if (!bucket) grouped.set(b, (bucket = new Map()));
    bucket.set(k, value);
  }
  let size = 0;
  for (const bucket of grouped.values()) size += bucket.size;
  // fromEntries defines own properties: no key reaches a prototype.
  return { size, buckets: Object.fromEntries([...grouped].map(([b, bucket]) => [b, Object.fromEntries(bucket)])) };
};
