/**
 * A persistent map: a trie of fixed depth over a hash of the key, 16 slots a level, with small
 * leaves of [key, value] pairs. Setting or removing a key copies the three short arrays on its
 * path and its leaf, never the map, so a fold that adds one entry per event stays linear in the
 * events and each step costs the same at the 10th entry and the 100,000th. (Spreading objects
 * of buckets, as before, cost about 200 µs an event at 5,000 calls: dictionary-mode copies.)
 * Values are never mutated in place: every state a fold passed through stays as it was.
 */
export interface Keyed<V> {
  readonly size: number;
  /**
   * Levels 0 to 2: arrays of 16 children (null: empty); below level 2: leaves of [key, value].
   * A level-2 node (a part: 16 leaves) may be a `PartStub` read back from a snapshot's head.
   */
  readonly root: Trie<V>;
}

type Leaf<V> = readonly (readonly [string, V])[];
type Trie<V> = readonly (Trie<V> | Leaf<V> | PartStub | null)[];
type Level = readonly (Level | Leaf<unknown> | PartStub | null)[];

/**
 * A part of a map (one level-2 node: 16 leaves) that a snapshot's head names by its digest
 * and that is read only when something looks into it. Filling `node` in once it is read and
 * checked changes no value the map holds (the stub stands for exactly that node), so every
 * state sharing the stub sees it read. A set under a stub replaces it with a plain copy: a
 * stub left in a map is a part unchanged since the snapshot.
 */
export class PartStub {
  node: readonly (Leaf<unknown> | null)[] | null = null;
  constructor(
    /** Where the part is kept (its snapshot row). */
    readonly key: string,
    /** The digest its head gives it: a part read back must have exactly this text. */
    readonly digest: string,
    /**
     * The part's JSON when it came in the snapshot's own (MAC-checked) text: decoded the first
     * time something looks into it, with no read, so a cold state costs what it is looked at.
     */
    public text: string | null = null,
  ) {}
}

/** A stub whose text is at hand decoded into its node (once: every state sharing it sees it). */
const fill = (stub: PartStub): void => {
  if (stub.node !== null || stub.text === null) return;
  const parsed = JSON.parse(stub.text) as unknown;
  // The text is under the snapshot's MAC (this service wrote it): a shape it cannot have is a defect, not input.
  if (!isPartShape(parsed)) throw new Error('a snapshot part held in its text is not a part');
  stub.node = parsed;
  partJson.set(parsed, stub.text);
  stub.text = null;
};

/** Thrown by a look into parts not read yet: the caller reads them and runs the (pure) work again. */
export class PartsMissing extends Error {
  constructor(readonly parts: readonly PartStub[]) {
    super(`${parts.length} snapshot part(s) not read yet`);
  }
}

const resolved = (node: unknown): Level | null => {
  if (!(node instanceof PartStub)) return node as Level | null;
  fill(node);
  if (node.node === null) throw new PartsMissing([node]);
  return node.node as Level;
};

const WIDTH = 16;
const DEPTH = 3;
const blank = (): null[] => Array.from({ length: WIDTH }, () => null);

/** FNV-1a over the key's UTF-16 units: the path's slots are its low nibbles. */
const hashOf = (key: string): number => {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
};
const slot = (hash: number, level: number) => (hash >>> (4 * level)) & (WIDTH - 1);

export const emptyKeyed = <V>(): Keyed<V> => ({ size: 0, root: blank() });

const leafOf = <V>(m: Keyed<V>, hash: number): Leaf<V> | null => {
  let node: Level | null = m.root as Level;
  for (let level = 0; level < DEPTH - 1 && node; level++) node = resolved(node[slot(hash, level)]);
  return node ? ((node[slot(hash, DEPTH - 1)] as Leaf<V> | null) ?? null) : null;
};

export const keyedGet = <V>(m: Keyed<V>, key: string | number): V | undefined => {
  const k = String(key);
  const leaf = leafOf(m, hashOf(k));
  return leaf?.find((entry) => entry[0] === k)?.[1];
};

export const keyedHas = <V>(m: Keyed<V>, key: string | number): boolean => keyedGet(m, key) !== undefined;

/** The map with the leaf on `hash`'s path replaced by what `change` makes of it (null: emptied). */
const withLeaf = <V>(m: Keyed<V>, hash: number, change: (leaf: Leaf<V>) => Leaf<V>): Trie<V> => {
  const rebuild = (node: Level | null, level: number): Level | Leaf<V> | null => {
    if (level === DEPTH) {
      const next = change((node as Leaf<V> | null) ?? []);
      return next.length === 0 ? null : next;
    }
    const copy = node ? [...node] : blank();
    copy[slot(hash, level)] = rebuild(resolved(node?.[slot(hash, level)] ?? null), level + 1);
    return copy;
  };
  return rebuild(m.root as Level, 0) as Trie<V>;
};

export const keyedSet = <V>(m: Keyed<V>, key: string | number, value: V): Keyed<V> => {
  const k = String(key);
  let added = 1;
  const root = withLeaf(m, hashOf(k), (leaf) => {
    const at = leaf.findIndex((entry) => entry[0] === k);
    if (at < 0) return [...leaf, [k, value] as const];
    added = 0;
    return leaf.map((entry, i) => (i === at ? ([k, value] as const) : entry));
  });
  return { size: m.size + added, root };
};

export const keyedDelete = <V>(m: Keyed<V>, key: string | number): Keyed<V> => {
  const k = String(key);
  const hash = hashOf(k);
  if (!leafOf(m, hash)?.some((entry) => entry[0] === k)) return m;
  return { size: m.size - 1, root: withLeaf(m, hash, (leaf) => leaf.filter((entry) => entry[0] !== k)) };
};

/** Every entry; parts not read yet are all named at once (one read for all of them). */
export const keyedEntries = <V>(m: Keyed<V>): [string, V][] => {
  const out: [string, V][] = [];
  const missing: PartStub[] = [];
  const walk = (node: unknown, level: number) => {
    if (node instanceof PartStub) fill(node);
    if (node instanceof PartStub && node.node === null) return void missing.push(node);
    const n = resolved(node);
    if (!n) return;
    if (level === DEPTH) for (const [k, v] of n as unknown as Leaf<V>) out.push([k, v]);
    else for (const child of n) walk(child, level + 1);
  };
  walk(m.root, 0);
  if (missing.length > 0) throw new PartsMissing(missing);
  return out;
};

/** The stub on `key`'s path when its part has not been read yet, else null. */
export const keyedStubOn = <V>(m: Keyed<V>, key: string | number): PartStub | null => {
  const hash = hashOf(String(key));
  const upper = (m.root as Level)[slot(hash, 0)];
  const part = upper ? (upper as Level)[slot(hash, 1)] : null;
  if (part instanceof PartStub) fill(part);
  return part instanceof PartStub && part.node === null ? part : null;
};

/** Parts are addressed by their two upper slots: 256 of them, each 16 leaves. */
export const PARTS = WIDTH * WIDTH;

/** The map's non-empty parts (level-2 nodes), each a plain node or the stub it still is, by address. */
export const keyedParts = <V>(m: Keyed<V>): [number, readonly (Leaf<unknown> | null)[] | PartStub][] => {
  const out: [number, readonly (Leaf<unknown> | null)[] | PartStub][] = [];
  (m.root as Level).forEach((upper, a) => {
    if (upper === null) return;
    (upper as Level).forEach((part, b) => {
      // A part whose entries were all removed holds 16 empty slots: nothing to keep.
      if (part === null || (Array.isArray(part) && part.every((leaf) => leaf === null))) return;
      out.push([a * WIDTH + b, part as readonly (Leaf<unknown> | null)[] | PartStub]);
    });
  });
  return out;
};

/** A map of `size` entries whose parts are stubs (a snapshot's head read back): each is read when looked into. */
export const keyedOfStubs = <V>(size: number, parts: readonly (readonly [number, PartStub])[]): Keyed<V> => {
  const root: (unknown[] | null)[] = blank();
  for (const [at, stub] of parts) ((root[Math.floor(at / WIDTH)] ??= blank()) as unknown[])[at % WIDTH] = stub;
  return { size, root: root as unknown as Trie<V> };
};

/** A map of `size` entries from its parts' texts (the JSON `keyedPartTexts` gave), each decoded when first looked into. */
export const keyedOfTexts = <V>(size: number, parts: readonly (readonly [number, string])[]): Keyed<V> =>
  keyedOfStubs<V>(
    size,
    parts.map(([at, text]) => [at, new PartStub('', '', text)] as const),
  );

/**
 * Each part's JSON, by the part's node: nodes are never changed in place, so a part unchanged
 * since the last pack (the same node) is not written out again (a memo, not state: the same
 * node always has the same JSON).
 */
const partJson = new WeakMap<object, string>();
const jsonOf = (node: readonly (Leaf<unknown> | null)[]): string => {
  let text = partJson.get(node);
  if (text === undefined) partJson.set(node, (text = JSON.stringify(node)));
  return text;
};

/** Each non-empty part's JSON by address: a part still held as text is given as it is, not decoded. */
export const keyedPartTexts = <V>(m: Keyed<V>): [number, string][] =>
  keyedParts(m).map(([at, part]) => {
    if (part instanceof PartStub && part.node === null) {
      if (part.text === null) throw new PartsMissing([part]);
      return [at, part.text];
    }
    return [at, jsonOf(part instanceof PartStub ? part.node! : part)];
  });

/** Whether a part read back (a level-2 node as text) has the shape: 16 slots, each empty or a non-empty leaf of [string, value]. */
export const isPartShape = (v: unknown): v is readonly (Leaf<unknown> | null)[] =>
  Array.isArray(v) &&
  v.length === WIDTH &&
  v.some((leaf) => leaf !== null) &&
  v.every(
    (leaf) => leaf === null || (Array.isArray(leaf) && leaf.length > 0 && leaf.every((e) => Array.isArray(e) && e.length === 2 && typeof e[0] === 'string')),
  );

export const keyedValues = <V>(m: Keyed<V>): V[] => keyedEntries(m).map((entry) => entry[1]);

/** A map built from its entries at once (a snapshot read back), without a copy per entry. */
export const keyedFrom = <V>(entries: Iterable<readonly [string | number, V]>): Keyed<V> => {
  const root: unknown[] = blank();
  let size = 0;
  for (const [key, value] of entries) {
    const k = String(key);
    const hash = hashOf(k);
    let node = root;
    for (let level = 0; level < DEPTH - 1; level++) node = (node[slot(hash, level)] as unknown[] | null) ??= blank();
    const leaf = ((node[slot(hash, DEPTH - 1)] as [string, V][] | null) ??= []);
    const at = leaf.findIndex((entry) => entry[0] === k);
    if (at >= 0) leaf[at] = [k, value];
    else {
      leaf.push([k, value]);
      size++;
    }
  }
  return { size, root: root as Trie<V> };
};

/** Whether a value read back from snapshot text has this shape all the way down (keys strings, levels 16 wide). */
export const isKeyedShape = (v: unknown): v is Keyed<unknown> => {
  if (typeof v !== 'object' || v === null || typeof (v as { size?: unknown }).size !== 'number') return false;
  let count = 0;
  const ok = (node: unknown, level: number): boolean => {
    if (node === null) return true;
    if (!Array.isArray(node)) return false;
    if (level === DEPTH) {
      count += node.length;
      return node.length > 0 && node.every((e) => Array.isArray(e) && e.length === 2 && typeof e[0] === 'string');
    }
    return node.length === WIDTH && node.every((child) => ok(child, level + 1));
  };
  return ok((v as { root?: unknown }).root, 0) && count === (v as Keyed<unknown>).size;
};
