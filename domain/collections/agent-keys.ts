import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { defineEvent, type EventOf } from '../events/schema.ts';
import type { Decider } from '../shared/decider.ts';
import { refusal, type Refusal } from '../shared/refusal.ts';

/** An agent key issued: only its SHA-256 is kept; the key itself was shown once. Its subject is `apikey:<id>`. */
export const AgentKeyIssued = defineEvent(
  'AgentKeyIssued',
  1,
  t.type({ tenant: t.string, id: t.string, agent: t.string, key_sha256: t.string, issued_ms: t.number }),
);
export type AgentKeyEvent = EventOf<typeof AgentKeyIssued>;

/** One stream per tenant holds its agent keys. */
export const agentKeysStream = (tenant: string) => `agentkeys:${tenant}`;

/** An agent's name as the records API takes it: no `:` (it names a stream) and nothing a header would mangle. */
export const AGENT_KEY_AGENT = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,127}$/;

export type AgentKeysState = Map<string, { readonly agent: string; readonly key_sha256: string }>;

export interface IssueAgentKey {
  readonly tenant: string;
  readonly id: string;
  readonly agent: string;
  readonly key_sha256: string;
  readonly now: number;
}

export const agentKeysDecider: Decider<IssueAgentKey, AgentKeyEvent, AgentKeysState> = {
  initialState: () => new Map(),
  evolve: (state, e) => new Map(state).set(e.data.id, { agent: e.data.agent, key_sha256: e.data.key_sha256 }),
  // A stream caught up in one pass: one copy of the map, not one per event.
  fold: (state, events) => {
    const next = new Map(state);
    for (const e of events) next.set(e.data.id, { agent: e.data.agent, key_sha256: e.data.key_sha256 });
    return next;
  },
  decide: (c, state) => {
    if (!AGENT_KEY_AGENT.test(c.agent))
      return E.left<Refusal>(refusal('invalid', { field: 'agent', reason: 'an agent is 1–128 of [A-Za-z0-9._/-], starting with a letter or digit' }));
    if (state.has(c.id)) return E.left<Refusal>(refusal('already_exists', { what: 'agent key' }));
    return E.right([{ type: 'AgentKeyIssued', data: { tenant: c.tenant, id: c.id, agent: c.agent, key_sha256: c.key_sha256, issued_ms: c.now } }]);
  },
};
