import type { Revocation } from '../envelopes/reaches.ts';
import { KeyedMap } from '../shared/keyed-map.ts';
import { keyedEntries, keyedFrom } from '../shared/keyed.ts';
import { openSnapshot, sealSnapshot } from '../shared/sealed-snapshot.ts';
import type { AnsweredRequest, PluginInstall, TenantState } from './state.ts';

/**
 * A tenant's stream folded up to a revision, as snapshot text MACed under the tenant's envelope
 * key: its state, its revocation batches (what the fence and a mint's revocation check read)
 * and the global position of the newest event folded (so a fold asked to stop below a position
 * starts from it only when it lies below). A snapshot whose MAC does not hold is ignored: the
 * stream is folded from its first event, every event MAC-checked by the store.
 *
 * Format 2: the state's persistent maps (plugins, their order, install generations, answered
 * requests) as arrays of [key, value] entries, built back into maps at once. Format 1 (the
 * maps as plain objects, before they were persistent) is still read, once, on an upgrade.
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

/** The maps of a state as entries: the JSON of a state, every other field as it is. */
const packedState = (s: TenantState) =>
  s.exists
    ? {
        ...s,
        plugins: keyedEntries(s.plugins.map),
        plugin_order: keyedEntries(s.plugin_order.map),
        install_gens: keyedEntries(s.install_gens.map),
        requests: keyedEntries(s.requests.map),
      }
    : s;

export const packTenant = (snapshot: TenantSnapshot, stream: string, revision: number, mac: (input: string) => string): string => {
  const text = JSON.stringify({ ...snapshot, state: packedState(snapshot.state) });
  return sealSnapshot(KIND, String(FORMAT), text, stream, revision, mac);
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isEntries = (v: unknown): v is [string, unknown][] => Array.isArray(v) && v.every((e) => Array.isArray(e) && e.length === 2 && typeof e[0] === 'string');

/** A format-2 state's maps built back from their entries, or null when one is not entries. */
const stateOf = (s: Record<string, unknown>): TenantState | null => {
  if (s.exists !== true) return s as unknown as TenantState;
  const { plugins, plugin_order, install_gens, requests } = s;
  if (!isEntries(plugins) || !isEntries(plugin_order) || !isEntries(install_gens) || !isEntries(requests) || typeof s.plugin_seq !== 'number') return null;
  return {
    ...(s as unknown as Existing),
    plugins: new KeyedMap(keyedFrom(plugins as [string, PluginInstall][])),
    plugin_order: new KeyedMap(keyedFrom(plugin_order as [string, number][])),
    install_gens: new KeyedMap(keyedFrom(install_gens as [string, number][])),
    requests: new KeyedMap(keyedFrom(requests as [string, AnsweredRequest][])),
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
  const parsed = JSON.parse(text) as unknown;
  if (!isObject(parsed) || !isObject(parsed.state) || typeof parsed.state.exists !== 'boolean') return null;
  if (typeof parsed.position !== 'number' || !Array.isArray(parsed.batches)) return null;
  if (!parsed.batches.every((b: unknown) => isObject(b) && typeof b.epoch === 'number' && Array.isArray(b.revocations))) return null;
  const state = current !== null ? stateOf(parsed.state) : upcastState(parsed.state);
  if (state === null) return null;
  return { state, batches: parsed.batches as TenantSnapshot['batches'], position: parsed.position };
};
