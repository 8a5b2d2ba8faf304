import { heldTenantIds, holdsTenant } from '../../queries/tenant-residence.ts';
import type { Cells } from './cells.ts';
import type { PlacementStore } from './placement.ts';

const heldIn = (cells: Cells, name: string): Promise<string[]> => heldTenantIds(cells.byName.get(name)!.db);

/**
 * Places the tenants each database holds that have no placement yet: a database that held every
 * tenant before CUSTODIAN_DATABASES named it is taken over as it is. A database that does not
 * answer is skipped (its tenants are adopted when first asked for, by `adoptIfHeld`).
 */
export const adoptHeldTenants = async (cells: Cells, placement: PlacementStore): Promise<void> => {
  for (const name of cells.names) {
    const held = await heldIn(cells, name).catch(() => null);
    if (held) await placement.adopt(held, name);
  }
};

/** Places one unplaced tenant where a database holds it; answers whether one did. */
export const adoptIfHeld = async (cells: Cells, placement: PlacementStore, tenant: string): Promise<boolean> => {
  for (const name of cells.names) {
    const found = await holdsTenant(cells.byName.get(name)!.db, tenant).catch(() => false);
    if (found) {
      await placement.adopt([tenant], name);
      return true;
    }
  }
  return false;
};
