import { applyPatch, type TenantSettings } from './settings.ts';
import type { RecordScopeKind, TenantEvent } from './events.ts';
import type { RetentionEvent } from '../retention/events.ts';
import type { Selector } from '../retention/holds.ts';
import { batchDigest, installDigest } from './request-digest.ts';
import { KeyedMap, type ReadonlyKeyedMap } from '../shared/keyed-map.ts';
import { keyedDelete, keyedSet } from '../shared/keyed.ts';

/** Everything a tenant stream holds. */
export type TenantStreamEvent =
  TenantEvent | Extract<RetentionEvent, { type: 'HoldPlaced' | 'HoldReleased' | 'ErasureRequested' | 'ErasureDeferred' | 'SubjectKeyShredded' }>;

export interface PluginInstall {
  readonly name: string;
  readonly install_gen: number;
  readonly scopes: readonly RecordScopeKind[];
  readonly functions: readonly string[];
  readonly agents: readonly string[];
  readonly startup: string | null;
}

/** The installed plugins, by name: a persistent map, so an install copies a path of it, never the map. */
export type Plugins = ReadonlyKeyedMap<PluginInstall>;
/** What a reader of the plugins needs: one plugin by name (a name like `__proto__` is a plain key). */
export type PluginLookup = Pick<Plugins, 'get'>;

export type TenantState =
  /** No tenant: never created, or removed (`removed_ms`: its id is not used again). */
  | { readonly exists: false; readonly removed_ms?: number }
  | {
      readonly exists: true;
      readonly id: string;
      readonly settings: TenantSettings;
      readonly authority_epoch: number;
      /** Counts settings versions: the tenant policy version a job's block 0 records. */
      readonly settings_version: number;
      readonly created_ms: number;
      readonly plugins: Plugins;
      /**
       * When each installed plugin joined the installed set (an upgrade keeps its place, a
       * removal forgets it): the plugins map iterates in hash order, and the tenant's view lists
       * them in the order a plain object of them kept (see `tenantView`).
       */
      readonly plugin_order: ReadonlyKeyedMap<number>;
      /** The next `plugin_order` number. */
      readonly plugin_seq: number;
      readonly holds: Readonly<Record<string, { selector: Selector; reason: string }>>;
      /** Data subjects whose erasure waits on holds. */
      readonly pending_erasures: readonly string[];
      /** The highest install_gen each plugin name ever had, installed now or removed. */
      readonly install_gens: ReadonlyKeyedMap<number>;
      /** Revocations that stick (SPEC §6): killed agents (`<plugin>/<agent>`) until lifted, revoked api keys. */
      readonly killed_agents: readonly string[];
      readonly revoked_keys: readonly string[];
      /** Answered request ids: a retry answers the earlier answer and writes nothing. */
      readonly requests: ReadonlyKeyedMap<AnsweredRequest>;
      /** Each batch's signed receipt, by epoch. */
      readonly receipts: Readonly<Record<number, Record<string, unknown>>>;
    };

/** `digest`: of the request the id answered (request-digest.ts), so another request under it is refused. */
export type AnsweredRequest =
  | { readonly kind: 'plugin'; readonly plugin: PluginInstall; readonly digest: string }
  | { readonly kind: 'revocations'; readonly epoch: number; readonly digest: string };

export const initialTenantState = (): TenantState => ({ exists: false });

/**
 * The map with one entry set, as a new wrapper over the new trie: the state evolved from keeps
 * its own (states are values; a map another state holds is never written to).
 */
const withEntry = <V>(m: ReadonlyKeyedMap<V>, key: string, value: V): ReadonlyKeyedMap<V> => new KeyedMap(keyedSet(m.map, key, value));

/** The map without these keys (the same map when it held none of them). */
const withoutKeys = <V>(m: ReadonlyKeyedMap<V>, keys: readonly string[]): ReadonlyKeyedMap<V> => {
  let map = m.map;
  for (const key of keys) map = keyedDelete(map, key);
  return map === m.map ? m : new KeyedMap(map);
};

type Existing = Extract<TenantState, { exists: true }>;
type Installed = Extract<TenantStreamEvent, { type: 'PluginInstalled' }>['data'];

/** An install: one path of each map copied, whatever the number of plugins the tenant has. */
const installed = (state: Existing, d: Installed): Existing => {
  const { name, install_gen, scopes, functions, agents, startup, request_id } = d;
  const plugin = { name, install_gen, scopes, functions, agents, startup };
  // An upgrade keeps its place in the view; a name new to the installed set goes last.
  const placed = state.plugin_order.has(name);
  return {
    ...state,
    plugins: withEntry(state.plugins, name, plugin),
    plugin_order: placed ? state.plugin_order : withEntry(state.plugin_order, name, state.plugin_seq),
    plugin_seq: placed ? state.plugin_seq : state.plugin_seq + 1,
    install_gens: withEntry(state.install_gens, name, Math.max(install_gen, state.install_gens.get(name) ?? 0)),
    requests: request_id === undefined ? state.requests : withEntry(state.requests, request_id, { kind: 'plugin', plugin, digest: installDigest(plugin) }),
  };
};

export const evolveTenant = (state: TenantState, event: TenantStreamEvent): TenantState => {
  switch (event.type) {
    case 'TenantCreated':
      return {
        exists: true,
        id: event.data.tenant,
        settings: event.data.settings,
        authority_epoch: event.data.authority_epoch,
        settings_version: 1,
        created_ms: event.data.created_ms,
        plugins: new KeyedMap(),
        plugin_order: new KeyedMap(),
        plugin_seq: 0,
        holds: {},
        pending_erasures: [],
        install_gens: new KeyedMap(),
        killed_agents: [],
        revoked_keys: [],
        requests: new KeyedMap(),
        receipts: {},
      };
    case 'TenantSettingsChanged':
      if (!state.exists) return state;
      return { ...state, settings: applyPatch(state.settings, event.data.changes), settings_version: state.settings_version + 1 };
    case 'PluginInstalled':
      return state.exists ? installed(state, event.data) : state;
    case 'RevocationBatchApplied': {
      if (!state.exists) return state;
      const d = event.data;
      const killed = d.items.flatMap((i) => (i.kind === 'kill_agent' ? [i.agent] : []));
      const keys = d.items.flatMap((i) => (i.kind === 'api_key_revoked' ? [i.key] : []));
      return {
        ...state,
        authority_epoch: d.epoch,
        // A removal takes its path out of the maps; the highest generation stays (install_gens).
        plugins: withoutKeys(state.plugins, d.removed_plugins),
        plugin_order: withoutKeys(state.plugin_order, d.removed_plugins),
        settings: {
          ...state.settings,
          grants: d.grants,
          people: d.people,
          ...(d.start_roles ? { start_roles: d.start_roles } : {}),
          ...(d.start_teams ? { start_teams: d.start_teams } : {}),
        },
        killed_agents: [...new Set([...state.killed_agents, ...killed])],
        revoked_keys: [...new Set([...state.revoked_keys, ...keys])],
        requests:
          d.request_id === undefined
            ? state.requests
            : withEntry(state.requests, d.request_id, { kind: 'revocations', epoch: d.epoch, digest: batchDigest(d.items) }),
      };
    }
    case 'RevocationReceiptIssued':
      return state.exists ? { ...state, receipts: { ...state.receipts, [event.data.epoch]: event.data.receipt } } : state;
    case 'AgentKillLifted':
      return state.exists ? { ...state, killed_agents: state.killed_agents.filter((a) => a !== event.data.agent) } : state;
    case 'HoldPlaced':
      return state.exists ? { ...state, holds: { ...state.holds, [event.data.hold]: { selector: event.data.selector, reason: event.data.reason } } } : state;
    case 'HoldReleased': {
      if (!state.exists) return state;
      const { [event.data.hold]: _gone, ...holds } = state.holds;
      return { ...state, holds };
    }
    case 'ErasureRequested':
      return state.exists && !state.pending_erasures.includes(event.data.data_subject)
        ? { ...state, pending_erasures: [...state.pending_erasures, event.data.data_subject] }
        : state;
    case 'SubjectKeyShredded':
      return state.exists ? { ...state, pending_erasures: state.pending_erasures.filter((s) => s !== event.data.data_subject) } : state;
    // A deferral is logged for its receipt; the subject was pending since its request.
    case 'ErasureDeferred':
      return state;
    case 'TenantRemoved':
      return state.exists ? { exists: false, removed_ms: event.data.removed_ms } : state;
  }
};

/**
 * `evolveTenant` over many events at once, linear in them. The plugins, install generations
 * and answered requests are persistent maps, so each event is evolved as it comes; the holds
 * are still a plain object (one spread per HoldPlaced would be quadratic in a long run of
 * holds), so a fold copies them once and then writes them in place. Only the final state
 * leaves the fold; the state passed in is never written to.
 */
export const foldTenant = (from: TenantState, events: Iterable<TenantStreamEvent>): TenantState => {
  let owned: object | null = null;
  let state = from;
  for (const event of events) {
    if (state.exists && event.type === 'HoldPlaced') {
      const holds: Record<string, unknown> = state.holds === owned ? state.holds : { ...state.holds };
      owned = holds;
      // Defined, not assigned: a hold id named like a prototype property stays a plain entry.
      Object.defineProperty(holds, event.data.hold, {
        value: { selector: event.data.selector, reason: event.data.reason },
        writable: true,
        enumerable: true,
        configurable: true,
      });
      state = { ...state, holds: holds as Existing['holds'] };
    } else state = evolveTenant(state, event);
  }
  return state;
};

/** A name a plain object lists first, in ascending order (an array index: 0 to 2^32 - 2, in its canonical spelling). */
const indexLike = (name: string): number | null => {
  if (!/^(?:0|[1-9]\d{0,9})$/.test(name)) return null;
  const n = Number(name);
  return n < 2 ** 32 - 1 ? n : null;
};

/**
 * The installed plugins in the order the view has always listed them (a plain object's
 * `Object.values`): array-index names first, ascending, then the rest in the order they joined
 * the installed set. The plugins map itself iterates in hash order.
 */
export const pluginsInOrder = (s: Existing): PluginInstall[] => {
  const keyed = [...s.plugins.values()].map((p) => ({ p, index: indexLike(p.name), seq: s.plugin_order.get(p.name) ?? Number.MAX_SAFE_INTEGER }));
  keyed.sort((a, b) => {
    if (a.index !== null || b.index !== null) return a.index === null ? 1 : b.index === null ? -1 : a.index - b.index;
    return a.seq - b.seq;
  });
  return keyed.map((k) => k.p);
};

/** The view of a tenant an admin caller gets back. */
export const tenantView = (s: Existing) => ({
  id: s.id,
  settings: s.settings,
  authority_epoch: s.authority_epoch,
  created_ms: s.created_ms,
  plugins: pluginsInOrder(s).map((p) => ({ ...p })),
  holds: Object.entries(s.holds).map(([id, h]) => ({ id, ...h })),
  pending_erasures: s.pending_erasures,
});
