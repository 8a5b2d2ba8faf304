import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { defineEvent, type EventOf } from '../events/schema.ts';
import type { Decider } from '../shared/decider.ts';
import { refusal, type Refusal } from '../shared/refusal.ts';

/**
 * An auditor key issued (SPEC §14): it reads one tenant's audit stream, checkpoints, proofs and
 * receipts, nothing else. Only its SHA-256 is kept; the key itself was shown once. Its subject
 * is `apikey:<id>`, so `api_key_revoked` with that id ends it.
 */
export const AuditorKeyIssued = defineEvent('AuditorKeyIssued', 1, t.type({ tenant: t.string, id: t.string, key_sha256: t.string, issued_ms: t.number }));
export type AuditorKeyEvent = EventOf<typeof AuditorKeyIssued>;

export const auditorEventSchemas = [AuditorKeyIssued] as const;

/** One stream per tenant holds its auditor keys. */
export const auditorKeysStream = (tenant: string) => `auditorkeys:${tenant}`;

/** Key id → SHA-256 (hex) of the key. */
export type AuditorKeysState = Map<string, string>;

export interface IssueAuditorKey {
  readonly tenant: string;
  readonly id: string;
  readonly key_sha256: string;
  readonly now: number;
}

export const auditorKeysDecider: Decider<IssueAuditorKey, AuditorKeyEvent, AuditorKeysState> = {
  initialState: () => new Map(),
  evolve: (state, e) => new Map(state).set(e.data.id, e.data.key_sha256),
  // A stream caught up in one pass: one copy of the map, not one per event.
  fold: (state, events) => {
    const next = new Map(state);
    for (const e of events) next.set(e.data.id, e.data.key_sha256);
    return next;
  },
  decide: (c, state) => {
    if (state.has(c.id)) return E.left<Refusal>(refusal('already_exists', { what: 'auditor key' }));
    return E.right([{ type: 'AuditorKeyIssued', data: { tenant: c.tenant, id: c.id, key_sha256: c.key_sha256, issued_ms: c.now } }]);
  },
};
