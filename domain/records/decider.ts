import type { Decider } from '../shared/decider.ts';
import { decideRetention, type RetainScope } from '../retention/decide.ts';
import { decidePut, type PutRecord } from './decide.ts';
import { evolveScope, initialScopeState, type ScopeEvent, type ScopeState } from './state.ts';

/** What a scope stream (tenant, plugin, scope) is asked to do: a put, or a retention pass. */
export type ScopeCommand = ({ readonly type: 'PutRecord' } & PutRecord) | ({ readonly type: 'RetainScope' } & RetainScope);

/**
 * The scope's decider. Its events carry digests opened (the state compares them); sealing
 * them for the log, and opening them back, happen outside it, in the handler's codec.
 */
export const scopeDecider: Decider<ScopeCommand, ScopeEvent, ScopeState> = {
  initialState: initialScopeState,
  evolve: evolveScope,
  decide: (c, s) => (c.type === 'PutRecord' ? decidePut(c, s) : decideRetention(c, s)),
};
