import { applyPatch, type TenantSettings } from './settings.ts';
import type { RecordScopeKind, TenantEvent } from './events.ts';
import type { RetentionEvent } from '../retention/events.ts';
import type { Selector } from '../retention/holds.ts';
import { batchDigest, installDigest } from './request-digest.ts';

/** Everything a tenant stream holds. */
export type TenantStreamEvent = TenantEvent | Extract<RetentionEvent, { type: 'HoldPlaced' | 'HoldReleased' | 'ErasureRequested' | 'SubjectKeyShredded' }>;

export interface PluginInstall {
  readonly name: string;
  readonly install_gen: number;
  readonly scopes: readonly RecordScopeKind[];
  readonly functions: readonly string[];
  readonly agents: readonly string[];
  readonly startup: string | null;
}

export type TenantState =
  | { readonly exists: false }
  | {
      readonly exists: true;
      readonly id: string;
      readonly settings: TenantSettings;
      readonly authority_epoch: number;
      /** Counts settings versions: the tenant policy version a job's block 0 records. */
      readonly settings_version: number;
      readonly created_ms: number;
      readonly plugins: Readonly<Record<string, PluginInstall>>;
      readonly holds: Readonly<Record<string, { selector: Selector; reason: string }>>;
      /** Data subjects whose erasure waits on holds. */
      readonly pending_erasures: readonly string[];
      /** The highest install_gen each plugin name ever had, installed now or removed. */
      readonly install_gens: Readonly<Record<string, number>>;
      /** Revocations that stick (SPEC §6): killed agents (`<plugin>/<agent>`) until lifted, revoked api keys. */
      readonly killed_agents: readonly string[];
      readonly revoked_keys: readonly string[];
      /** Answered request ids: a retry answers the earlier answer and writes nothing. */
      readonly requests: Readonly<Record<string, AnsweredRequest>>;
      /** Each batch's signed receipt, by epoch. */
      readonly receipts: Readonly<Record<number, Record<string, unknown>>>;
    };

/** `digest`: of the request the id answered (request-digest.ts), so another request under it is refused. */
export type AnsweredRequest =
  | { readonly kind: 'plugin'; readonly plugin: PluginInstall; readonly digest: string }
  | { readonly kind: 'revocations'; readonly epoch: number; readonly digest: string };

export const initialTenantState = (): TenantState => ({ exists: false });

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
        plugins: {},
        holds: {},
        pending_erasures: [],
        install_gens: {},
        killed_agents: [],
        revoked_keys: [],
        requests: {},
        receipts: {},
      };
    case 'TenantSettingsChanged':
      if (!state.exists) return state;
      return { ...state, settings: applyPatch(state.settings, event.data.changes), settings_version: state.settings_version + 1 };
    case 'PluginInstalled': {
      if (!state.exists) return state;
      const { name, install_gen, scopes, functions, agents, startup, request_id } = event.data;
      const plugin = { name, install_gen, scopes, functions, agents, startup };
      return {
        ...state,
        plugins: { ...state.plugins, [name]: plugin },
        install_gens: { ...state.install_gens, [name]: Math.max(install_gen, Object.hasOwn(state.install_gens, name) ? state.install_gens[name]! : 0) },
        requests: request_id === undefined ? state.requests : { ...state.requests, [request_id]: { kind: 'plugin', plugin, digest: installDigest(plugin) } },
      };
    }
    case 'RevocationBatchApplied': {
      if (!state.exists) return state;
      const d = event.data;
      // Most batches remove no plugin: the map is kept, not rebuilt (it grows with the tenant).
      const plugins =
        d.removed_plugins.length === 0
          ? state.plugins
          : Object.fromEntries(Object.entries(state.plugins).filter(([name]) => !d.removed_plugins.includes(name)));
      const killed = d.items.flatMap((i) => (i.kind === 'kill_agent' ? [i.agent] : []));
      const keys = d.items.flatMap((i) => (i.kind === 'api_key_revoked' ? [i.key] : []));
      return {
        ...state,
        authority_epoch: d.epoch,
        plugins,
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
            : { ...state.requests, [d.request_id]: { kind: 'revocations', epoch: d.epoch, digest: batchDigest(d.items) } },
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
  }
};

type Existing = Extract<TenantState, { exists: true }>;

/**
 * `evolveTenant` over many events at once, linear in them: the maps that grow with the stream
 * (plugins, install generations, answered requests, holds) are copied once per fold and then
 * written in place, where one event at a time copies each whole map (5,000 installs folded
 * one by one copied 12.5 million entries). Only the final state leaves the fold; the state
 * passed in is never written to.
 */
export const foldTenant = (from: TenantState, events: Iterable<TenantStreamEvent>): TenantState => {
  const owned = new Set<object>();
  const writable = <T extends object>(m: T): T => {
    if (owned.has(m)) return m;
    const copy = { ...m };
    owned.add(copy);
    return copy;
  };
  // Defined, not assigned: a key named like a prototype property stays a plain entry.
  const put = (m: object, key: string, value: unknown) => Object.defineProperty(m, key, { value, writable: true, enumerable: true, configurable: true });
  let state = from;
  for (const event of events) {
    if (!state.exists) {
      state = evolveTenant(state, event);
      continue;
    }
    const s: Existing = state;
    if (event.type === 'PluginInstalled') {
      const { name, install_gen, scopes, functions, agents, startup, request_id } = event.data;
      const plugin = { name, install_gen, scopes, functions, agents, startup };
      const plugins = writable(s.plugins);
      const gens = writable(s.install_gens);
      put(plugins, name, plugin);
      put(gens, name, Math.max(install_gen, Object.hasOwn(s.install_gens, name) ? s.install_gens[name]! : 0));
      let requests = s.requests;
      if (request_id !== undefined) {
        const w = writable(s.requests);
        put(w, request_id, { kind: 'plugin', plugin, digest: installDigest(plugin) });
        requests = w;
      }
      state = { ...s, plugins, install_gens: gens, requests };
    } else if (event.type === 'HoldPlaced') {
      const holds = writable(s.holds);
      put(holds, event.data.hold, { selector: event.data.selector, reason: event.data.reason });
      state = { ...s, holds };
    } else state = evolveTenant(s, event);
  }
  return state;
};

/** The view of a tenant an admin caller gets back. */
export const tenantView = (s: Extract<TenantState, { exists: true }>) => ({
  id: s.id,
  settings: s.settings,
  authority_epoch: s.authority_epoch,
  created_ms: s.created_ms,
  plugins: Object.values(s.plugins).map((p) => ({ ...p })),
  holds: Object.entries(s.holds).map(([id, h]) => ({ id, ...h })),
  pending_erasures: s.pending_erasures,
});
