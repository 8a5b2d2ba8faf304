import * as E from 'fp-ts/lib/Either.js';
import { eventRegistry } from '../domain/events/registry.ts';
import { assertUntampered, type EventStore } from '../domain/ports/event-store.ts';
import { foldTenant, initialTenantState, type TenantState, type TenantStreamEvent } from '../domain/tenants/state.ts';
import type { Folded } from './handle.ts';

/**
 * A tenant's stream read whole from the log (every event MAC-checked by the store) and folded
 * in one linear fold: the starting point `handle` takes for a tenant it has not folded, where
 * folding event by event copies the tenant's growing maps once per event.
 */
export const tenantFolded =
  (store: EventStore) =>
  async (stream: string): Promise<Folded<TenantState> | null> => {
    const records = await store.readStream(stream);
    if (records.length === 0) return null;
    const events = records.map((r): TenantStreamEvent => {
      assertUntampered(r);
      const decoded = eventRegistry.decode(r.type, r.schema_version, r.data);
      if (E.isLeft(decoded)) throw new Error(`stream ${stream} revision ${r.revision}: ${decoded.left}`);
      return decoded.right as TenantStreamEvent;
    });
    return { state: foldTenant(initialTenantState(), events), revision: records.at(-1)!.revision };
  };
