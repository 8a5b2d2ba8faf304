import * as E from 'fp-ts/lib/Either.js';
import { refusal, type Refusal } from '../shared/refusal.ts';
import { DEFAULT_LEVEL, lowestLevel, type Block } from './block.ts';

/** What a child start asks for; anything left out is inherited from the parent. */
export interface ChildAsk {
  readonly job: string;
  readonly run: number;
  readonly subject: string;
  readonly agent: string;
  readonly agent_version: string;
  readonly plugin: string;
  readonly install_gen: number;
  readonly purpose: string;
  /** The child plugin's own reach: its scopes plus its grants, at this start. */
  readonly reach: readonly string[];
  readonly scopes?: readonly string[] | undefined;
  readonly budget_usd?: number | undefined;
  readonly max_depth?: number | undefined;
  readonly expires_ms?: number | undefined;
  readonly labels: readonly string[];
  readonly constraints_digest: string;
  readonly policy_version: number;
}

const widening = (field: string, reason: string): Refusal => refusal('widening_refused', { field, reason });

/**
 * SPEC §6: each hop only narrows. Subject and epoch are the parent's; scopes are what both
 * the parent holds and the child's plugin reaches; budget, depth and expiry only stay or
 * fall; depth grows by one within max_depth; the level is the lowest along the chain. A
 * child asking for more than its parent holds is refused, naming the field.
 */
export const narrowBlock = (parent: Block, ask: ChildAsk): E.Either<Refusal, Block> => {
  if (ask.subject !== parent.subject) return E.left(widening('subject', `a child runs on its parent's subject (${parent.subject})`));
  const available = parent.scopes.filter((s) => ask.reach.includes(s));
  if (ask.scopes) {
    const extra = ask.scopes.find((s) => !available.includes(s));
    if (extra !== undefined) return E.left(widening('scopes', `${extra} is not held by both the parent and the child's plugin`));
  }
  if (ask.budget_usd !== undefined && parent.budget_usd !== null && ask.budget_usd > parent.budget_usd)
    return E.left(widening('budget_usd', `the parent's budget is ${parent.budget_usd}`));
  // A null ceiling is none: a child may set one below it, never lift one to none.
  const depth = parent.depth + 1;
  if (parent.max_depth !== null && depth > parent.max_depth) return E.left(widening('depth', `the tree may delegate ${parent.max_depth} deep`));
  if (ask.max_depth !== undefined && parent.max_depth !== null && ask.max_depth > parent.max_depth)
    return E.left(widening('max_depth', `the parent's max_depth is ${parent.max_depth}`));
  if (ask.expires_ms !== undefined && parent.expires_ms !== null && ask.expires_ms > parent.expires_ms)
    return E.left(widening('timeout_ms', `the parent's authority ends at ${parent.expires_ms}`));
  return E.right({
    job: ask.job,
    run: ask.run,
    subject: parent.subject,
    agent: ask.agent,
    agent_version: ask.agent_version,
    plugin: ask.plugin,
    install_gen: ask.install_gen,
    purpose: ask.purpose,
    scopes: ask.scopes ? [...ask.scopes].sort() : available,
    budget_usd: ask.budget_usd ?? parent.budget_usd,
    max_depth: ask.max_depth ?? parent.max_depth,
    depth,
    expires_ms: ask.expires_ms ?? parent.expires_ms,
    policy_version: ask.policy_version,
    epoch: parent.epoch,
    level: lowestLevel(parent.level, DEFAULT_LEVEL),
    granted_by: parent.granted_by,
    level_policy_version: parent.level_policy_version,
    labels: [...new Set([...parent.labels, ...ask.labels])].sort(),
    constraints_digest: ask.constraints_digest,
  });
};
