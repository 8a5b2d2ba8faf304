import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import { auditorKeysDecider, auditorKeysStream, type AuditorKeyEvent, type AuditorKeysState } from '../domain/auditors/keys.ts';
import type { EventStore } from '../domain/ports/event-store.ts';
import { tenantStream } from '../domain/shared/names.ts';
import type { Refusal } from '../domain/shared/refusal.ts';
import { tenantDecider } from '../domain/tenants/decide.ts';
import type { TenantState, TenantStreamEvent } from '../domain/tenants/state.ts';
import { handle, inspect, stateCache } from './handle.ts';
import { absentTenant } from '../domain/tenants/remove.ts';

/** The tenant an auditor key reads for, and the key's id (its subject is `apikey:<id>`). */
export interface AuditorPrincipal {
  readonly tenant: string;
  readonly keyId: string;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/** `au.<tenant>.<id>.<secret>`: the tenant and id say where to look, the secret is what proves it. */
const KEY = /^au\.([a-z0-9][a-z0-9_-]{0,62})\.([0-9a-f]{32})\.[A-Za-z0-9_-]{43}$/;

/**
 * Auditor keys (SPEC §14): issued by the admin, shown once, kept only as SHA-256, refused at
 * once when the tenant's log holds an `api_key_revoked` for them. Resolved from the log
 * (verified by the authenticated store), never from a read model, like agent keys.
 */
export const auditorKeyCommands = (store: EventStore, now: () => number) => {
  const cache = stateCache<AuditorKeysState>(1_000);
  const tenants = stateCache<TenantState>(1_000);
  const tenantState = (tenant: string) =>
    inspect<TenantStreamEvent, TenantState>(store, tenantStream(tenant), tenantDecider, (s) => s, { cache: tenants }) as Promise<TenantState>;
  return {
    async issue(tenant: string): Promise<E.Either<Refusal, { key: string; id: string; position: number | null }>> {
      const state = await tenantState(tenant);
      if (!state.exists) return E.left(absentTenant(tenant, state));
      const id = randomBytes(16).toString('hex');
      const key = `au.${tenant}.${id}.${randomBytes(32).toString('base64url')}`;
      const command = { tenant, id, key_sha256: sha256(key).toString('hex'), now: now() };
      const decided = await handle(store, auditorKeysStream(tenant), auditorKeysDecider, command, { tenant, causation: null, correlation: null }, { cache });
      return E.map((d: { position: number | null }) => ({ key, id, position: d.position }))(decided);
    },

    /** The tenant behind a bearer auditor key, or null: unknown, malformed, wrong secret or revoked alike. */
    async resolve(authorization: string | undefined): Promise<AuditorPrincipal | null> {
      const bearer = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
      const m = bearer === undefined ? null : KEY.exec(bearer);
      if (!m || bearer === undefined) return null;
      const [, tenant, id] = m as unknown as [string, string, string];
      const digest = (await inspect<AuditorKeyEvent, AuditorKeysState>(store, auditorKeysStream(tenant), auditorKeysDecider, (s) => s.get(id), { cache })) as
        string | undefined;
      if (digest === undefined || !timingSafeEqual(Buffer.from(digest, 'hex'), sha256(bearer))) return null;
      const t = await tenantState(tenant);
      if (!t.exists || t.revoked_keys.includes(id)) return null;
      return { tenant, keyId: id };
    },
  };
};

export type AuditorKeyCommands = ReturnType<typeof auditorKeyCommands>;
