import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { packAgent, packAgentLegacy, takeAgent, unpackAgent } from '../../../domain/collections/snapshot.ts';
import { evolveAgent, initialAgentState, type AgentState } from '../../../domain/collections/state.ts';
import { PartsMissing } from '../../../domain/shared/keyed.ts';
import { openPart } from '../../../domain/shared/snapshot-parts.ts';
import type { CollectionEvent } from '../../../domain/collections/events.ts';
import { packTenant, unpackTenant, type TenantSnapshot } from '../../../domain/tenants/snapshot.ts';
import { foldTenant, initialTenantState, tenantView, type TenantStreamEvent } from '../../../domain/tenants/state.ts';

const macOf = (input: string) => createHmac('sha256', 'tenant key').update(input).digest('base64url');

describe('tenant snapshots', () => {
  const events: TenantStreamEvent[] = [
    { type: 'TenantCreated', data: { tenant: 'acme', settings: {}, authority_epoch: 1, created_ms: 1 } } as unknown as TenantStreamEvent,
    ...Array.from(
      { length: 3 },
      (_, i) =>
        ({
          type: 'PluginInstalled',
          data: {
            tenant: 'acme',
            name: i === 0 ? '__proto__' : `p${i}`,
            install_gen: i + 1,
            scopes: [],
            functions: ['f'],
            agents: ['a'],
            startup: null,
            installed_ms: 2,
          },
        }) as unknown as TenantStreamEvent,
    ),
  ];
  const state = foldTenant(initialTenantState(), events);
  const snapshot = { state, batches: [{ epoch: 2, revocations: [{ kind: 'kill_agent' as const, agent: 'p1/a' }] }], position: 41 };

  it('given a tenant folded, when packed and read back for its stream and revision, then it is the same fold', () => {
    const back = unpackTenant(packTenant(snapshot, 'tenant:acme', 3, macOf), 'tenant:acme', 3, macOf);
    // The maps read back hold their parts as text until looked into: compared by what they hold.
    const plain = (s: TenantSnapshot | null) =>
      s && {
        ...s,
        state: s.state.exists
          ? {
              ...s.state,
              plugins: Object.fromEntries(s.state.plugins.entries()),
              plugin_order: Object.fromEntries(s.state.plugin_order.entries()),
              install_gens: Object.fromEntries(s.state.install_gens.entries()),
              requests: Object.fromEntries(s.state.requests.entries()),
            }
          : s.state,
      };
    expect(plain(back)).toEqual(plain(snapshot));
    expect(back?.state.exists && tenantView(back.state).plugins.map((p) => p.name)).toEqual(['__proto__', 'p1', 'p2']);
  });

  it('given a snapshot, when one byte changes or it is read for another stream, revision or key, then it is not used', () => {
    const packed = packTenant(snapshot, 'tenant:acme', 3, macOf);
    expect(unpackTenant(packed.replace('"epoch":2', '"epoch":1'), 'tenant:acme', 3, macOf)).toBeNull();
    expect(unpackTenant(packed, 'tenant:other', 3, macOf)).toBeNull();
    expect(unpackTenant(packed, 'tenant:acme', 4, macOf)).toBeNull();
    expect(unpackTenant(packed, 'tenant:acme', 3, (i) => createHmac('sha256', 'another key').update(i).digest('base64url'))).toBeNull();
  });
});

describe('agent snapshots', () => {
  const put = (id: string, seq: number): CollectionEvent =>
    ({
      type: 'AgentRecordPut',
      data: {
        tenant: 'acme',
        agent: 'scribe',
        collection: 'questions',
        id,
        seq,
        value: { k: `k${seq}`, n: 'n', c: 'c' },
        bytes: 10,
        index: [{ field: 'status', digest: `d${seq}` }],
        created_ms: seq,
        updated_ms: seq,
      },
    }) as unknown as CollectionEvent;
  const history: CollectionEvent[] = [
    {
      type: 'AgentCollectionsDeclared',
      data: { tenant: 'acme', agent: 'scribe', collections: [{ name: 'questions', people: ['buyer'], fields: ['status'] }], indexed: [], declared_ms: 0 },
    } as unknown as CollectionEvent,
    put('q1', 1),
    put('q2', 2),
    { type: 'AgentRecordDeleted', data: { tenant: 'acme', agent: 'scribe', collection: 'questions', id: 'q1', deleted_ms: 3 } } as unknown as CollectionEvent,
    put('q3', 4),
  ];
  const fold = () => history.reduce(evolveAgent, initialAgentState());

  /** Every part read back into its stubs, as a cold instance reads them; false when one is not the part its head names. */
  const readAll = (s: AgentState, rows: Map<string, string>) => {
    for (;;) {
      try {
        return { records: [...s.records.entries()], postings: [...s.postings.entries()] };
      } catch (error) {
        if (!(error instanceof PartsMissing)) throw error;
        for (const stub of error.parts) {
          const node = openPart(stub, rows.get(stub.key) ?? '');
          if (!node) return false;
          stub.node = node as typeof stub.node;
        }
      }
    }
  };
  const whole = (s: AgentState) => ({ ...s, records: [...s.records.entries()], postings: [...s.postings.entries()] });

  it('given an agent folded, when its head and parts are written and read back for its stream and revision, then it is the same fold', () => {
    const { head, parts } = packAgent(takeAgent(fold()), 'agent:acme:scribe', 4, macOf);
    const back = unpackAgent(head, 'agent:acme:scribe', 4, macOf)!;
    expect(readAll(back, new Map(parts.map((p) => [p.key, p.text])))).not.toBe(false);
    expect(whole(back)).toEqual(whole(fold()));
  });

  it('given a snapshot of the format before parts (format 1), when read back, then it is the same fold', () => {
    expect(whole(unpackAgent(packAgentLegacy(fold(), 'agent:acme:scribe', 4, macOf), 'agent:acme:scribe', 4, macOf)!)).toEqual(whole(fold()));
  });

  it('given a part edited in its row, when read back, then it is never used', () => {
    const { head, parts } = packAgent(takeAgent(fold()), 'agent:acme:scribe', 4, macOf);
    const rows = new Map(parts.map((p) => [p.key, p.text.replace('"q3"', '"q1"').replace('"d4"', '"d9"')]));
    expect([...rows.values()]).not.toEqual(parts.map((p) => p.text));
    expect(readAll(unpackAgent(head, 'agent:acme:scribe', 4, macOf)!, rows)).toBe(false);
  });

  it('given a snapshot, when one byte changes or it is read for another stream or revision, then it is not used', () => {
    const packed = packAgent(takeAgent(fold()), 'agent:acme:scribe', 4, macOf).head;
    expect(unpackAgent(packed.replace('"seq":4', '"seq":3'), 'agent:acme:scribe', 4, macOf)).toBeNull();
    expect(unpackAgent(packed, 'agent:acme:other', 4, macOf)).toBeNull();
    expect(unpackAgent(packed, 'agent:acme:scribe', 5, macOf)).toBeNull();
  });
});
