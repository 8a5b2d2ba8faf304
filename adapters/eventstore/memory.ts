import { EventEmitter } from 'node:events';
import * as E from 'fp-ts/lib/Either.js';
import type { AppendWith, EventStore, ExpectedRevision, NewEvent, RecordedEvent, StoredAuditLine } from '../../domain/ports/event-store.ts';
import { lineText } from '../../domain/audit/lines.ts';
import { GuardFailed } from '../../domain/ports/admission-guard.ts';
import { appendOneByOne } from './append-chain.ts';
import { meetsExpectation } from './expected-revision.ts';
import { pollingSubscription } from './subscription.ts';

/** An event store held in this process: for tests and single-process experiments. */
export const memoryEventStore = (): EventStore => {
  const all: RecordedEvent[] = [];
  const streams = new Map<string, RecordedEvent[]>();
  const ids = new Set<string>();
  /** Each tenant's audit lines, written with their events: place = index. */
  const lines = new Map<string, StoredAuditLine[]>();
  const appended = new EventEmitter();
  appended.setMaxListeners(0);

  const store: EventStore = {
    name: 'memory',
    async append(stream: string, events: readonly NewEvent[], expected: ExpectedRevision, options?: AppendWith) {
      // No admission guard is checked here (only PostgreSQL counts requests in the append's transaction).
      if (options?.guard) throw new GuardFailed();
      const conditions = options?.conditions;
      const existing = streams.get(stream);
      const current = existing ? existing.length - 1 : 'no_stream';
      if (!meetsExpectation(expected, current)) return E.left({ kind: 'wrong_expected_revision', stream, expected, actual: current });
      // One process, no await between this check and the write: nothing moves in between.
      for (const c of conditions?.unmoved ?? []) {
        const at = streams.get(c.stream);
        const actual = at ? at.length - 1 : 'no_stream';
        if (actual !== c.revision) return E.left({ kind: 'wrong_expected_revision', stream: c.stream, expected: c.revision, actual });
      }
      const duplicate = events.find((e) => ids.has(e.event_id));
      if (duplicate) throw new Error(`event id ${duplicate.event_id} was already appended`);
      const list = existing ?? [];
      const recorded_at = Date.now();
      for (const e of events) {
        const r: RecordedEvent = { ...e, stream, revision: list.length, position: all.length + 1, recorded_at };
        list.push(r);
        all.push(r);
        ids.add(e.event_id);
      }
      streams.set(stream, list);
      // The events' audit lines, each at its tenant's next place, timed as its event.
      for (const l of options?.audit ?? []) {
        const log = lines.get(l.tenant) ?? [];
        log.push({ tenant: l.tenant, seq: log.length, at: recorded_at, line: lineText(l, recorded_at, log.length) });
        lines.set(l.tenant, log);
      }
      if (events.length > 0) appended.emit('append');
      return E.right({ nextExpectedRevision: list.length - 1, position: all.length });
    },
    appendChain: (units) => appendOneByOne((u) => store.append(u.stream, u.events, u.expected, u))(units),
    async readStream(stream, fromRevision = 0) {
      return (streams.get(stream) ?? []).slice(fromRevision);
    },
    async readAll(after, options) {
      return all.slice(Math.max(0, after), options?.limit === undefined ? undefined : Math.max(0, after) + options.limit);
    },
    async readAuditLines(tenant, from, limit) {
      return (lines.get(tenant) ?? []).slice(from, limit === undefined ? undefined : from + limit);
    },
    subscribe(after, handler) {
      return pollingSubscription(this, after, handler);
    },
    async headPosition() {
      return all.length;
    },
    onAppend(listener) {
      appended.on('append', listener);
      return () => appended.off('append', listener);
    },
    async close() {
      appended.removeAllListeners();
    },
  };
  return store;
};
