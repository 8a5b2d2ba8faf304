import type { TenantSettings } from '../tenants/settings.ts';

/**
 * SPEC §3 `label_walls`: the two labels of a wall never meet in one job. A start (or a child
 * start, whose labels are its parent's current labels plus its own) that would hold both
 * sides is refused: the wall pair it would hold, or null.
 */
export const wallHeld = (walls: TenantSettings['label_walls'], labels: readonly string[]): readonly [string, string] | null => {
  const held = new Set(labels);
  const wall = walls.find(([a, b]) => held.has(a) && held.has(b));
  return wall ? [wall[0], wall[1]] : null;
};
