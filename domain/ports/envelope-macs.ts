/**
 * Envelope MACs (SPEC §6): the tenant's MAC function over a block's input. The key behind
 * it (derived from the cluster secrets key) stays in the adapter.
 */
export type EnvelopeMac = (input: string) => string;
export type EnvelopeMacs = (tenant: string) => EnvelopeMac;
