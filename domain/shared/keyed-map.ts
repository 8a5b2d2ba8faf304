import { emptyKeyed, keyedDelete, keyedEntries, keyedGet, keyedSet, keyedStubOn, PartsMissing, type Keyed, type PartStub } from './keyed.ts';

/**
 * A `Keyed` map behind the few `Map` methods a large fold uses, for states that are updated in
 * place (a scope's, an agent's): the map it holds is a persistent value, so a snapshot takes
 * it as it is at one instant (`map`) and packs it later, while the fold goes on. A look into a
 * part not read yet throws `PartsMissing` (domain/shared/keyed.ts); a fold that must stay
 * exact looks up everything an event touches before it changes anything, so a throw leaves the
 * state as it was and the same event is evolved again once the parts are read.
 *
 * Iteration is in the trie's (hash) order, the same for every instance that folded the same
 * events: nothing decided depends on it but counts.
 */
export class KeyedMap<V> implements Iterable<[string, V]> {
  constructor(public map: Keyed<V> = emptyKeyed<V>()) {}
  get size(): number {
    return this.map.size;
  }
  get(key: string): V | undefined {
    return keyedGet(this.map, key);
  }
  has(key: string): boolean {
    return keyedGet(this.map, key) !== undefined;
  }
  set(key: string, value: V): this {
    this.map = keyedSet(this.map, key, value);
    return this;
  }
  delete(key: string): boolean {
    const before = this.map.size;
    this.map = keyedDelete(this.map, key);
    return this.map.size < before;
  }
  /** Every entry (every part read: the ones not read yet are named at once). */
  entries(): IterableIterator<[string, V]> {
    return keyedEntries(this.map)[Symbol.iterator]();
  }
  values(): IterableIterator<V> {
    const values = keyedEntries(this.map).map((e) => e[1]);
    return values[Symbol.iterator]();
  }
  keys(): IterableIterator<string> {
    const keys = keyedEntries(this.map).map((e) => e[0]);
    return keys[Symbol.iterator]();
  }
  [Symbol.iterator](): IterableIterator<[string, V]> {
    return this.entries();
  }
  /** Throws `PartsMissing` naming, at once, every part not read yet that these keys live in (one read for all of them). */
  require(keys: Iterable<string>): void {
    const missing = new Set<PartStub>();
    for (const key of keys) {
      const stub = keyedStubOn(this.map, key);
      if (stub) missing.add(stub);
    }
    if (missing.size > 0) throw new PartsMissing([...missing]);
  }
  /** The part `key` lives in, when it is a stub not read yet (to read several at once before a fold). */
  stubOn(key: string): PartStub | null {
    return keyedStubOn(this.map, key);
  }
}

/**
 * A `KeyedMap` as an immutable value holds it (a tenant's state): read, never written — a new
 * state takes a new wrapper over the new trie (`new KeyedMap(keyedSet(m.map, k, v))`), so every
 * state evolved from keeps the map it had.
 */
export type ReadonlyKeyedMap<V> = Omit<KeyedMap<V>, 'set' | 'delete' | 'map'> & { readonly map: Keyed<V> };
