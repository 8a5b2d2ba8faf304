import type { Placement, PlacementStore } from './placement.ts';

/**
 * Placements as every request reads them: from memory for `ttlMs`, then from the control
 * database again (so a move's pause and switch reach every instance within `ttlMs`). When the
 * control database does not answer, the last placement read is used: a tenant's requests
 * depend on its own database, not on the control database's being up.
 */
export const placementCache = (store: PlacementStore, ttlMs: number, now: () => number = Date.now) => {
  const cached = new Map<string, { placement: Placement; at: number }>();
  return {
    async of(tenant: string): Promise<Placement | null> {
      const hit = cached.get(tenant);
      if (hit && now() - hit.at < ttlMs) return hit.placement;
      let placement: Placement | null;
      try {
        placement = await store.of(tenant);
      } catch (error) {
        if (hit) return hit.placement;
        throw error;
      }
      // Unplaced tenants are not remembered: one created on another instance is found at once.
      if (placement) cached.set(tenant, { placement, at: now() });
      else cached.delete(tenant);
      return placement;
    },
    /** Forgets a tenant this instance just placed, paused, switched or resumed. */
    forget(tenant: string) {
      cached.delete(tenant);
    },
  };
};

export type PlacementCache = ReturnType<typeof placementCache>;
