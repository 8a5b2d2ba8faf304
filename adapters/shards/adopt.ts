import type { Cells } from './cells.ts';
import type { PlacementStore } from './placement.ts';

/** Every tenant a database holds, removed ones too (they answer 410 from where they are). */
const heldIn = async (cells: Cells, name: string): Promise<string[]> =>
  (await cells.byName.get(name)!.db.query<{ id: string }>('SELECT id FROM rm_tenants ORDER BY id')).rows.map((r) => r.id);

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
    const found = await cells.byName
      .get(name)!
      .db.query('SELECT 1 FROM rm_tenants WHERE id = $1', [tenant])
      .then((r) => r.rows.length > 0)
      .catch(() => false);
    if (found) {
      await placement.adopt([tenant], name);
      return true;
    }
  }
  return false;
};
