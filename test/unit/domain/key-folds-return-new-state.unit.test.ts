import { describe, expect, it } from 'vitest';
import { auditorKeysDecider, type AuditorKeyEvent } from '../../../domain/auditors/keys.ts';
import { agentKeysDecider, type AgentKeyEvent } from '../../../domain/collections/agent-keys.ts';

const auditor = (id: string): AuditorKeyEvent => ({ type: 'AuditorKeyIssued', data: { tenant: 't', id, key_sha256: `h-${id}`, issued_ms: 1 } });
const agent = (id: string): AgentKeyEvent => ({ type: 'AgentKeyIssued', data: { tenant: 't', id, agent: 'scribe', key_sha256: `h-${id}`, issued_ms: 1 } });

describe('the key streams evolve to new states', () => {
  it('an auditor key issued is in the state evolve returns, never in the state it was given; fold agrees with evolve', () => {
    const before = auditorKeysDecider.initialState();
    const after = auditorKeysDecider.evolve(before, auditor('a'));
    expect([...after.keys()]).toEqual(['a']);
    expect(before.size).toBe(0);
    const events = ['a', 'b', 'c'].map(auditor);
    expect(auditorKeysDecider.fold!(before, events)).toEqual(events.reduce(auditorKeysDecider.evolve, before));
    expect(before.size).toBe(0);
  });

  it('an agent key issued is in the state evolve returns, never in the state it was given; fold agrees with evolve', () => {
    const before = agentKeysDecider.initialState();
    const after = agentKeysDecider.evolve(before, agent('a'));
    expect([...after.keys()]).toEqual(['a']);
    expect(before.size).toBe(0);
    const events = ['a', 'b', 'c'].map(agent);
    expect(agentKeysDecider.fold!(before, events)).toEqual(events.reduce(agentKeysDecider.evolve, before));
    expect(before.size).toBe(0);
  });
});
