import { canonicalJson, sha256Hex } from '../shared/hash.ts';
import type { BatchItem } from './events.ts';

/**
 * A request id names one request (SPEC §6 "retries are idempotent"): a retry is the same
 * id with the same request. What an id answered is kept with the digest of that request —
 * the canonical JSON of what was asked, rebuilt from the event it wrote — so the same id
 * carrying another request is refused instead of answered with the first one's answer.
 */
export const batchDigest = (items: readonly BatchItem[]): string => sha256Hex(canonicalJson({ kind: 'revocations', items }));

/** An install as the decider normalised it (scopes deduplicated, startup null when none). */
export const installDigest = (p: {
  name: string;
  scopes: readonly string[];
  functions: readonly string[];
  agents: readonly string[];
  startup: string | null;
}): string =>
  sha256Hex(canonicalJson({ kind: 'plugin', name: p.name, scopes: [...p.scopes].sort(), functions: p.functions, agents: p.agents, startup: p.startup }));
