/** The offload threshold when neither the job nor the tenant set one (SPEC §13), in `weigh` tokens. */
export const DEFAULT_OFFLOAD_TOKENS = 10_000;

/**
 * The threshold a job starts with and keeps (SPEC §13): its own `offload` (tokens or "off")
 * within the tenant's ceiling, else the tenant's `offload_tokens`, else 10,000. A job asking for
 * more than the ceiling, or "off" under one, gets the ceiling: a ceiling is a bound, not a refusal.
 */
export const offloadThreshold = (
  asked: number | 'off' | undefined,
  tenant: { readonly offload_tokens?: number | null | undefined; readonly offload_ceiling?: number | null | undefined },
): number | 'off' => {
  const ceiling = tenant.offload_ceiling ?? null;
  const wanted = asked ?? tenant.offload_tokens ?? DEFAULT_OFFLOAD_TOKENS;
  if (ceiling === null) return wanted;
  return wanted === 'off' ? ceiling : Math.min(wanted, ceiling);
};
