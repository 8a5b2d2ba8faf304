import type { Revocation } from '../envelopes/reaches.ts';
import { KeyedMap } from '../shared/keyed-map.ts';
import { keyedFrom, keyedOfTexts, keyedPartTexts, PARTS, type Keyed } from '../shared/keyed.ts';
import { openSnapshot, sealSnapshot } from '../shared/sealed-snapshot.ts';
import type { AnsweredRequest, PluginInstall, TenantState } from './state.ts';

/**
 * A tenant's stream folded up to a revision, as snapshot text MACed under the tenant's envelope
 * key: its state, its revocation batches (what the fence and a mint's revocation check read)
 * and the global position of the newest event folded (so a fold asked to stop below a position
 * starts from it only when it lies below). A snapshot whose MAC does not hold is ignored: the
 * stream is folded from its first event, every event MAC-checked by the store.
 *
 * Format 2: lines. The first is the JSON of the snapshot with each of the state's persistent
 * maps (plugins, their order, install generations, answered requests) as its size; each line
 * after it is one non-empty part of one map, `<map>\t<address>\t<the part's JSON>`. Opening
 * parses the first line only: a part is decoded when something first looks into it, so a cold
 * instance's first command costs the MAC check and the parts it reaches, not every plugin
 * (a 5,000-plugin tenant's snapshot took ~18 ms to open whole). Format 1 (the maps as plain
 * objects, before they were persistent) is still read, once, on an upgrade.
 */
const FORMAT = 2;
const LEGACY = 1;

const KIND = 'tenant-snapshot';

export interface TenantSnapshot {
  readonly state: TenantState;
  readonly batches: readonly { readonly epoch: number; readonly revocations: readonly Revocation[] }[];
  readonly position: number;
}

type Existing = Extract<TenantState, { exists: true }>;

/** The state's maps, by the name each has in the state and in a part's line. */
const MAPS = ['plugins', 'plugin_order', 'install_gens', 'requests'] as const;
type MapName = (typeof MAPS)[number];

export const packTenant = (snapshot: TenantSnapshot, stream: string, revision: number, mac: (input: string) => string): string => {
  const s = snapshot.state;
  if (!s.exists) return sealSnapshot(KIND, String(FORMAT), JSON.stringify(snapshot), stream, revision, mac);
  const sizes = Object.fromEntries(MAPS.map((name) => [name, { size: s[name].size }]));
  const lines = [JSON.stringify({ ...snapshot, state: { ...s, ...sizes } })];
  for (const name of MAPS) for (const [at, text] of keyedPartTexts(s[name].map as Keyed<unknown>)) lines.push(`${name}\t${at}\t${text}`);
  return sealSnapshot(KIND, String(FORMAT), lines.join('\n'), stream, revision, mac);
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The parts' lines of a format-2 text by map, or null when one is not a part's line of a known map. */
const partLines = (lines: readonly string[]): Record<MapName, [number, string][]> | null => {
  const out = Object.fromEntries(MAPS.map((name) => [name, [] as [number, string][]])) as Record<MapName, [number, string][]>;
  const seen = new Set<string>();
  for (const line of lines) {
    const a = line.indexOf('\t');
    const b = line.indexOf('\t', a + 1);
    if (a < 0 || b < 0) return null;
    const name = line.slice(0, a);
    const address = line.slice(a + 1, b);
    const at = Number(address);
    if (!(MAPS as readonly string[]).includes(name) || !/^[0-9]{1,3}$/.test(address) || at >= PARTS) return null;
    // One line a part: a second for the same part is not a text this service writes.
    if (seen.has(`${name}\t${at}`)) return null;
    seen.add(`${name}\t${at}`);
    out[name as MapName].push([at, line.slice(b + 1)]);
  }
  return out;
};

/** A format-2 state, its maps made of the parts' texts (each decoded when looked into), or null when a map's size is missing. */
const stateOf = (s: Record<string, unknown>, parts: Record<MapName, [number, string][]>): TenantState | null => {
  if (s.exists !== true) return s as unknown as TenantState;
  const sizes = MAPS.map((name) => (isObject(s[name]) ? (s[name] as { size?: unknown }).size : undefined));
  if (!sizes.every((n) => typeof n === 'number') || typeof s.plugin_seq !== 'number') return null;
  const mapOf = (name: MapName, i: number) => new KeyedMap(keyedOfTexts(sizes[i] as number, parts[name]));
  return {
    ...(s as unknown as Existing),
    plugins: mapOf('plugins', 0) as KeyedMap<PluginInstall>,
    plugin_order: mapOf('plugin_order', 1) as KeyedMap<number>,
    install_gens: mapOf('install_gens', 2) as KeyedMap<number>,
    requests: mapOf('requests', 3) as KeyedMap<AnsweredRequest>,
  };
};

/**
 * A format-1 state upcast: its plain objects into maps. The plugins object listed them in view
 * order (array-index names first, then the order they were installed), so that order is their
 * `plugin_order`.
 */
const upcastState = (s: Record<string, unknown>): TenantState | null => {
  if (s.exists !== true) return s as unknown as TenantState;
  const { plugins, install_gens, requests } = s;
  if (!isObject(plugins) || !isObject(install_gens) || !isObject(requests)) return null;
  const names = Object.keys(plugins);
  return {
    ...(s as unknown as Existing),
    plugins: new KeyedMap(keyedFrom(Object.entries(plugins as Record<string, PluginInstall>))),
    plugin_order: new KeyedMap(keyedFrom(names.map((name, i) => [name, i] as const))),
    plugin_seq: names.length,
    install_gens: new KeyedMap(keyedFrom(Object.entries(install_gens as Record<string, number>))),
    requests: new KeyedMap(keyedFrom(Object.entries(requests as Record<string, AnsweredRequest>))),
  };
};

/** The snapshot, or null: another format, a MAC that does not hold, a shape this build does not read. */
export const unpackTenant = (packed: string, stream: string, revision: number, mac: (input: string) => string): TenantSnapshot | null => {
  const current = openSnapshot(packed, KIND, String(FORMAT), stream, revision, mac);
  const text = current ?? openSnapshot(packed, KIND, String(LEGACY), stream, revision, mac);
  if (text === null) return null;
  // Format 2's first line is the head; format 1 is one JSON document.
  const lines = current !== null ? text.split('\n') : [text];
  const parsed = JSON.parse(lines[0]!) as unknown;
  if (!isObject(parsed) || !isObject(parsed.state) || typeof parsed.state.exists !== 'boolean') return null;
  if (typeof parsed.position !== 'number' || !Array.isArray(parsed.batches)) return null;
  if (!parsed.batches.every((b: unknown) => isObject(b) && typeof b.epoch === 'number' && Array.isArray(b.revocations))) return null;
  let state: TenantState | null;
  if (current === null) state = upcastState(parsed.state);
  else {
    const parts = partLines(lines.slice(1));
    state = parts && stateOf(parsed.state, parts);
  }
  if (state === null) return null;
  return { state, batches: parsed.batches as TenantSnapshot['batches'], position: parsed.position };
};
