import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import { agentKeysDecider, agentKeysStream, type AgentKeyEvent, type AgentKeysState, type IssueAgentKey } from '../domain/collections/agent-keys.ts';
import type { EventStore } from '../domain/ports/event-store.ts';
import { tenantStream } from '../domain/shared/names.ts';
import type { Refusal } from '../domain/shared/refusal.ts';
import { tenantDecider } from '../domain/tenants/decide.ts';
import { handle, inspect, stateCache } from './handle.ts';
import type { TenantState, TenantStreamEvent } from '../domain/tenants/state.ts';
import { absentTenant } from '../domain/tenants/remove.ts';

export interface AgentPrincipal {
  readonly tenant: string;
  readonly agent: string;
  /** The key's id: its subject is `apikey:<id>`. */
  readonly keyId: string;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/** `ak.<tenant>.<id>.<secret>`: the tenant and id say where to look, the secret is what proves it. */
const KEY = /^ak\.([a-z0-9][a-z0-9_-]{0,62})\.([0-9a-f]{32})\.[A-Za-z0-9_-]{43}$/;

/**
 * Agent keys (SPEC §12): issued by the admin, shown once, kept only as SHA-256, and refused at
 * once when the tenant's log holds an `api_key_revoked` for them. Everything is read from the
 * log (verified by the authenticated store), never from a read model.
 */
export const agentKeyCommands = (store: EventStore, now: () => number) => {
  const cache = stateCache<AgentKeysState>(1_000);
  // Tenant states are folded immutably, so a cached one is caught up, never mutated, by a read here.
  const tenants = stateCache<TenantState>(1_000);
  const tenantState = (tenant: string) =>
    inspect<TenantStreamEvent, TenantState>(store, tenantStream(tenant), tenantDecider, (s) => s, { cache: tenants }) as Promise<TenantState>;
  return {
    async issue(tenant: string, agent: string): Promise<E.Either<Refusal, { key: string; id: string; position: number | null }>> {
      const state = await tenantState(tenant);
      if (!state.exists) return E.left(absentTenant(tenant, state));
      const id = randomBytes(16).toString('hex');
      const key = `ak.${tenant}.${id}.${randomBytes(32).toString('base64url')}`;
      const command: IssueAgentKey = { tenant, id, agent, key_sha256: sha256(key).toString('hex'), now: now() };
      const decided = await handle(store, agentKeysStream(tenant), agentKeysDecider, command, { tenant, causation: null, correlation: null }, { cache });
      return E.map((d: { position: number | null }) => ({ key, id, position: d.position }))(decided);
    },

    /** The tenant and agent behind a bearer key, or null: unknown, malformed, wrong secret or revoked alike. */
    async resolve(authorization: string | undefined): Promise<AgentPrincipal | null> {
      const bearer = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
      const m = bearer === undefined ? null : KEY.exec(bearer);
      if (!m || bearer === undefined) return null;
      const [, tenant, id] = m as unknown as [string, string, string];
      const issued = (await inspect<AgentKeyEvent, AgentKeysState>(store, agentKeysStream(tenant), agentKeysDecider, (s) => s.get(id), {
        cache,
      })) as { agent: string; key_sha256: string } | undefined;
      if (!issued || !timingSafeEqual(Buffer.from(issued.key_sha256, 'hex'), sha256(bearer))) return null;
      const t = await tenantState(tenant);
      if (!t.exists || t.revoked_keys.includes(id)) return null;
      return { tenant, agent: issued.agent, keyId: id };
    },
  };
};

export type AgentKeyCommands = ReturnType<typeof agentKeyCommands>;
