import * as t from 'io-ts';
import { nullable } from '../events/schema.ts';
import { canonicalJson, sha256Hex } from '../shared/hash.ts';

/**
 * One block of an authority envelope (SPEC §6): what a job (and its subtree) may do. `run`
 * (added later, absent in older blocks) makes a restarted job id's envelope its own even
 * when every ceiling is none, so nothing time-dependent has to tell two runs apart.
 */
export const BlockCodec = t.intersection([
  t.type({
    job: t.string,
    subject: t.string,
    agent: t.string,
    agent_version: t.string,
    plugin: t.string,
    install_gen: t.number,
    purpose: t.string,
    scopes: t.array(t.string),
    budget_usd: nullable(t.number),
    /** null: no ceiling (SPEC §6, "ceilings default to none"). */
    max_depth: nullable(t.number),
    depth: t.number,
    expires_ms: nullable(t.number),
    policy_version: t.number,
    epoch: t.number,
    level: t.string,
    granted_by: t.string,
    level_policy_version: t.number,
    labels: t.array(t.string),
    constraints_digest: t.string,
  }),
  t.partial({ run: t.number }),
]);
export type Block = t.TypeOf<typeof BlockCodec>;

export const SignedBlockCodec = t.type({ block: BlockCodec, mac: t.string });
export type SignedBlock = t.TypeOf<typeof SignedBlockCodec>;
export type Chain = readonly SignedBlock[];

/** Autonomy levels, lowest first; until autonomy levels arrive every tree runs at L2. */
export const LEVELS = ['L0', 'L1', 'L2', 'L3', 'L4'] as const;
export const DEFAULT_LEVEL = 'L2';
export const lowestLevel = (a: string, b: string) => (LEVELS.indexOf(a as never) <= LEVELS.indexOf(b as never) ? a : b);

/** What a block's MAC covers: the block's canonical JSON and the previous block's MAC. */
export const macInput = (block: Block, previousMac: string) => `${canonicalJson(block)}\n${previousMac}`;

/** The job's envelope hash: SHA-256 of the canonical chain. */
export const envelopeHash = (chain: Chain) => sha256Hex(canonicalJson(chain));

export const constraintsDigest = (constraints: unknown) => sha256Hex(canonicalJson(constraints ?? []));

/** Each block MACed over itself and its predecessor's MAC; a chain with any bad link gives nothing. */
export const chainVerifies = (chain: Chain, mac: (input: string) => string): boolean =>
  chain.length > 0 && chain.every((b, i) => b.mac === mac(macInput(b.block, i === 0 ? '' : chain[i - 1]!.mac)));

export const head = (chain: Chain): Block => chain.at(-1)!.block;
