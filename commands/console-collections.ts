import { agentKeysDecider, agentKeysStream, type AgentKeyEvent, type AgentKeysState } from '../domain/collections/agent-keys.ts';
import { agentDecider } from '../domain/collections/decide.ts';
import { agentStream, type CollectionEvent } from '../domain/collections/events.ts';
import type { AgentState } from '../domain/collections/state.ts';
import type { EventStore } from '../domain/ports/event-store.ts';
import { inspect } from './handle.ts';

export interface CollectionSummary {
  readonly name: string;
  readonly records: number;
  /** The newest createdAt in it (null when empty): the console lists collections newest first. */
  readonly newest_ms: number | null;
}

/**
 * An agent's collections as the console shows them (SPEC §14): names and counts, folded from
 * the log, never a value. The agents are those the tenant issued agent keys for.
 */
export const agentCollections = async (store: EventStore, tenant: string) => {
  const keys = (await inspect<AgentKeyEvent, AgentKeysState>(store, agentKeysStream(tenant), agentKeysDecider, (s) =>
    [...s.values()].map((k) => k.agent),
  )) as string[];
  const agents = [...new Set(keys)].sort();
  return Promise.all(
    agents.map(async (agent) => {
      const collections = (await inspect<CollectionEvent, AgentState>(store, agentStream(tenant, agent), agentDecider, (s) => {
        const summary = new Map<string, { records: number; newest_ms: number | null }>(
          [...s.collections.keys()].map((n) => [n, { records: 0, newest_ms: null }]),
        );
        for (const r of s.records.values()) {
          const c = summary.get(r.collection) ?? { records: 0, newest_ms: null };
          summary.set(r.collection, { records: c.records + 1, newest_ms: Math.max(c.newest_ms ?? 0, r.created_ms) });
        }
        return [...summary].map(([name, c]) => ({ name, ...c }));
      })) as CollectionSummary[];
      collections.sort((a, b) => (b.newest_ms ?? -1) - (a.newest_ms ?? -1) || a.name.localeCompare(b.name));
      return { agent, collections };
    }),
  );
};

/** One agent record as the console lists it: its id and times, never its value. */
export interface RecordListing {
  readonly id: string;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/**
 * An agent's records by collection, newest first (seed 003's Records tab), folded from the
 * log: ids and times only. A value is the agent's to read (an audited read under its own
 * key); the console's keys see that a record is there and when it changed, nothing more.
 */
export const agentRecordLists = async (store: EventStore, tenant: string, agent: string, perCollection: number) =>
  (await inspect<CollectionEvent, AgentState>(store, agentStream(tenant, agent), agentDecider, (s) => {
    const by = new Map<string, RecordListing[]>([...s.collections.keys()].map((n) => [n, []]));
    for (const r of s.records.values()) {
      const list = by.get(r.collection) ?? [];
      list.push({ id: r.id, createdAt: r.created_ms, updatedAt: r.updated_ms });
      by.set(r.collection, list);
    }
    return [...by].map(([name, records]) => {
      records.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
      return { name, total: records.length, records: records.slice(0, perCollection) };
    });
  })) as { name: string; total: number; records: RecordListing[] }[];

/** The agents the tenant issued keys for, sorted. */
export const tenantAgents = async (store: EventStore, tenant: string) =>
  [
    ...new Set(
      (await inspect<AgentKeyEvent, AgentKeysState>(store, agentKeysStream(tenant), agentKeysDecider, (s) => [...s.values()].map((k) => k.agent))) as string[],
    ),
  ].sort();
