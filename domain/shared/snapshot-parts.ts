import { isPartShape, keyedOfStubs, keyedParts, PartStub, PARTS, type Keyed } from './keyed.ts';
import { sha256Hex } from './hash.ts';

/**
 * A snapshot's head and parts, for any state kept in `Keyed` maps (a job's, a scope's, an
 * agent's): the head is MACed (domain/shared/sealed-snapshot.ts) and names, for each map, its
 * size and the digest of each non-empty part (a level-2 node of its trie: at most 256); each
 * part is a row of its own, used only when its text has the digest its head gives it. A cold
 * load reads the head and then only the parts a command looks into.
 */

/** Where a part is kept: beside its head, named by map and address (stream names hold no `#`). */
export const partKey = (stream: string, map: string, at: number) => `${stream}#${map}.${at}`;

/** A part's digest: 128 bits of the SHA-256 of its text (the head that names it is MACed). */
export const partDigest = (text: string) => sha256Hex(text).slice(0, 32);

/** A part to write: its row key, digest and text, and the map node it holds. */
export interface PackedPart {
  readonly key: string;
  readonly digest: string;
  readonly text: string;
  readonly node: object;
}

/**
 * Parts this writer already wrote (a node → its key and digest): a part whose node has not
 * changed since is named again, not written again. A stub is a part read back: never written.
 */
export type WrittenParts = WeakMap<object, string>;

/**
 * Notes parts as written, once their rows are: a part noted before its write succeeded would
 * be named by every later head without ever being written (each cold load then replays).
 */
export const markWritten = (written: WrittenParts, parts: readonly PackedPart[]) => {
  for (const p of parts) written.set(p.node, `${p.key}|${p.digest}`);
};

/** What a head holds of one map: its size and its parts' digests by address. */
export interface NamedMap {
  readonly size: number;
  readonly parts: readonly (readonly [number, string])[];
}

/** Names a map's parts for its head, adding to `out` the ones to write (changed since they were last written or read; `markWritten` once they are). */
export const packMap = (m: Keyed<unknown>, stream: string, name: string, written: WrittenParts, out: PackedPart[]): NamedMap => ({
  size: m.size,
  parts: keyedParts(m).map(([at, node]): [number, string] => {
    const key = partKey(stream, name, at);
    if (node instanceof PartStub && node.key === key) return [at, node.digest];
    const plain = node instanceof PartStub ? node.node : node;
    const known = written.get(node);
    if (known?.startsWith(`${key}|`)) return [at, known.slice(key.length + 1)];
    const text = JSON.stringify(plain);
    const digest = partDigest(text);
    out.push({ key, digest, text, node });
    return [at, digest];
  }),
});

/** A map named in a head read back, its parts as stubs; null when the head's shape is not that. */
export const mapOfStubs = <V>(v: unknown, stream: string, name: string): Keyed<V> | null => {
  if (typeof v !== 'object' || v === null) return null;
  const { size, parts } = v as { size?: unknown; parts?: unknown };
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 0 || !Array.isArray(parts)) return null;
  const stubs: [number, PartStub][] = [];
  const seen = new Set<number>();
  for (const p of parts as unknown[]) {
    if (!Array.isArray(p) || p.length !== 2 || !Number.isInteger(p[0]) || p[0] < 0 || p[0] >= PARTS || typeof p[1] !== 'string') return null;
    if (seen.has(p[0] as number)) return null;
    seen.add(p[0] as number);
    stubs.push([p[0] as number, new PartStub(partKey(stream, name, p[0] as number), p[1])]);
  }
  return keyedOfStubs<V>(size, stubs);
};

/** A part's text read back: its node when the text has the stub's digest and the shape, else null (the snapshot is not used). */
export const openPart = (stub: PartStub, text: string): readonly unknown[] | null => {
  if (partDigest(text) !== stub.digest) return null;
  const node = JSON.parse(text) as unknown;
  return isPartShape(node) ? node : null;
};
