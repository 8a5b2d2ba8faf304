import * as E from 'fp-ts/lib/Either.js';
import type { EventStore } from '../domain/ports/event-store.ts';
import type { Clock } from '../domain/ports/clock.ts';
import { tenantStream } from '../domain/shared/names.ts';
import type { Refusal } from '../domain/shared/refusal.ts';
import { tenantDecider, type TenantCommand } from '../domain/tenants/decide.ts';
import type { RecordScopeKind } from '../domain/tenants/events.ts';
import type { TenantSettingsPatch } from '../domain/tenants/settings.ts';
import { tenantView, type TenantState } from '../domain/tenants/state.ts';
import { randomUUID } from 'node:crypto';
import { tenantFolded } from './tenant-fold.ts';
import type { TenantSnapshots } from '../queries/tenant-snapshots.ts';
import { handle, stateCache, type CommandContext, type Handled } from './handle.ts';

export interface PluginDeclaration {
  readonly name: string;
  readonly scopes?: readonly RecordScopeKind[] | undefined;
  readonly functions: readonly string[];
  readonly agents: readonly string[];
  readonly startup?: string | undefined;
  /** A retry carrying the same request id answers the earlier install and writes nothing. */
  readonly request_id?: string | undefined;
}

export type TenantView = ReturnType<typeof tenantView>;
export type Ctx = Omit<CommandContext, 'tenant'>;

/** A successful tenant command always leaves a tenant behind. */
const existing = (state: TenantState): Extract<TenantState, { exists: true }> => {
  if (!state.exists) throw new Error('tenant command succeeded without a tenant');
  return state;
};

const viewOf = (h: Handled<TenantState>): { tenant: TenantView; position: number | null } => ({ tenant: tenantView(existing(h.state)), position: h.position });

export const tenantCommands = (store: EventStore, clock: Clock, snapshots?: TenantSnapshots, onError?: (error: unknown) => void) => {
  // Tenants kept folded between commands: an install reads only what the stream gained since.
  const cache = stateCache<TenantState>(1_000);
  // A tenant not cached starts from its snapshot and the events after it, in one linear fold.
  const snapshot = tenantFolded(store, snapshots, onError);
  const command = (tenant: string, c: TenantCommand, ctx: Ctx) =>
    handle(
      store,
      tenantStream(tenant),
      tenantDecider,
      c,
      { tenant, causation: ctx.causationId ?? randomUUID(), correlation: ctx.correlationId ?? null },
      { cache, snapshot },
    );
  const run = async (tenant: string, c: TenantCommand, ctx: Ctx): Promise<E.Either<Refusal, ReturnType<typeof viewOf>>> =>
    E.map(viewOf)(await command(tenant, c, ctx));

  return {
    create: (tenant: string, settings: TenantSettingsPatch, ctx: Ctx = {}) => run(tenant, { type: 'CreateTenant', tenant, settings, now: clock.now() }, ctx),
    // Settings changes go through revocationCommands.changeSettings: one that takes authority
    // away is a revocation batch, whose reached jobs must stop and whose receipt must be signed.
    installPlugin: async (tenant: string, plugin: PluginDeclaration, ctx: Ctx = {}) => {
      const handled = await command(tenant, { type: 'InstallPlugin', tenant, ...plugin, now: clock.now() }, ctx);
      return E.map((h: Handled<TenantState>) => {
        const state = existing(h.state);
        const { position } = h;
        const earlier = h.events.length === 0 && plugin.request_id !== undefined ? state.requests.get(plugin.request_id) : undefined;
        if (earlier?.kind === 'plugin') return { plugin: { ...earlier.plugin }, position };
        // The one plugin installed, not the tenant's whole view (a copy of every plugin it has).
        return { plugin: { ...state.plugins.get(plugin.name)! }, position };
      })(handled);
    },
    /** Lifts a kill (SPEC §6): the agent starts jobs again; jobs the kill stopped stay stopped. */
    liftKill: (tenant: string, agent: string, ctx: Ctx = {}) => run(tenant, { type: 'LiftKill', tenant, agent, now: clock.now() }, ctx),
  };
};

export type TenantCommands = ReturnType<typeof tenantCommands>;
