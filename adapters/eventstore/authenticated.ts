import { TAMPERED_EVENT, type EventStore, type NewEvent, type RecordedEvent, type TamperedEventData } from '../../domain/ports/event-store.ts';
import { eventMacInput } from './event-mac-input.ts';

/** The MAC function for one tenant's events: HMAC-SHA-256 under a key the database never holds. */
export type EventMacKeys = (tenant: string) => (input: string) => string;

const sameMac = (a: string, b: string) => a.length === b.length && Buffer.from(a, 'hex').equals(Buffer.from(b, 'hex'));

/**
 * An event store whose every event carries a MAC over its stream, id, type, codec version,
 * data and metadata, made on append with a tenant key kept outside the database. Whatever
 * reads the log through it — the command handlers' loads, the records fence, the projections
 * — gets an event that no longer matches its MAC (or has none), or a stream with a hole in its
 * revisions, as a `$tampered` event: no codec decodes it, so a decider refuses to fold it and
 * a projection stops on it instead of building from it. A row edited in the events table can
 * no longer grant a scope, forge a ticket or revive a job.
 *
 * What it cannot see: a stream cut short at its tail together with its revision row (the log
 * then reads as an older, genuine log). The signed audit checkpoints are the anchor for that.
 */
export const authenticatedEventStore = (inner: EventStore, keys: EventMacKeys): EventStore => {
  const macOf = (stream: string, e: NewEvent) => keys(e.metadata.tenant)(eventMacInput(stream, e));

  const withMacs = (stream: string, events: readonly NewEvent[]) => events.map((e) => ({ ...e, metadata: { ...e.metadata, mac: macOf(stream, e) } }));

  const checked = (r: RecordedEvent, reason: string | null): RecordedEvent => {
    if (reason === null) {
      const mac = r.metadata.mac;
      if (typeof mac === 'string' && sameMac(mac, macOf(r.stream, r))) return r;
      reason = mac === undefined ? 'the event carries no MAC' : 'the event does not match its MAC';
    }
    const data: TamperedEventData = { stream: r.stream, revision: r.revision, original_type: r.type, reason };
    return { ...r, type: TAMPERED_EVENT, data };
  };

  /** A stream read from `from` must hold every revision from there on, one after another. */
  const checkStream = (events: readonly RecordedEvent[], from: number) =>
    events.map((r, i) => checked(r, r.revision === from + i ? null : `revision ${from + i} is missing from the stream`));

  return {
    ...inner,
    name: inner.name,
    append: (stream, events, expected, options) => inner.append(stream, withMacs(stream, events), expected, options),
    appendChain: (units) => inner.appendChain(units.map((u) => ({ ...u, events: withMacs(u.stream, u.events) }))),
    async readStream(stream, fromRevision = 0) {
      return checkStream(await inner.readStream(stream, fromRevision), fromRevision);
    },
    async readAll(after, options) {
      return (await inner.readAll(after, options)).map((r) => checked(r, null));
    },
    subscribe(after, handler) {
      return inner.subscribe(after, (r) => handler(checked(r, null)));
    },
    headPosition: () => inner.headPosition(),
    onAppend: (listener) => inner.onAppend(listener),
    close: () => inner.close(),
    ...(inner.marks ? { marks: inner.marks.bind(inner) } : {}),
  };
};
