/**
 * Commands waiting on one stream in this process. Each stream has one writer at a time: the
 * first caller runs what is queued, in arrival order, until nothing is; commands that can be
 * decided together (`Batchable`, the same batch kind, one after another in the queue) are
 * handed over together. Other processes still meet at the store's expected revision.
 */
export interface Waiting<I, T> {
  readonly item: I;
  readonly resolve: (value: T) => void;
  readonly reject: (error: unknown) => void;
}

/** How a kind of command is run several at a time: at most `max`, all of one `kind`. */
export interface Batchable<I, T> {
  readonly kind: object;
  readonly max: number;
  /** Settles every entry it is given (an entry left unsettled is refused with an error). */
  readonly run: (entries: readonly Waiting<I, T>[]) => Promise<void>;
}

interface Entry {
  readonly kind: object | null;
  readonly max: number;
  readonly run: (entries: readonly Entry[]) => Promise<void>;
  readonly item: unknown;
  settled: boolean;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

export const streamQueues = () => {
  const streams = new Map<string, Entry[]>();

  /** The next run of the queue: its head, and the entries of the head's kind right behind it. */
  const takeNext = (queue: Entry[]): Entry[] => {
    const head = queue[0]!;
    let n = 1;
    while (head.kind !== null && n < head.max && n < queue.length && queue[n]!.kind === head.kind) n++;
    return queue.splice(0, n);
  };

  const drain = async (stream: string, queue: Entry[]) => {
    while (queue.length > 0) {
      const taken = takeNext(queue);
      try {
        await taken[0]!.run(taken);
      } catch (error) {
        for (const e of taken) e.reject(error);
      }
      for (const e of taken) e.reject(new Error(`stream ${stream}: a queued command was never answered`));
    }
    streams.delete(stream);
  };

  const enqueue = <T>(stream: string, shape: Pick<Entry, 'kind' | 'max' | 'run' | 'item'>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const entry: Entry = {
        ...shape,
        settled: false,
        resolve: (v) => {
          if (entry.settled) return;
          entry.settled = true;
          resolve(v as T);
        },
        reject: (e) => {
          if (entry.settled) return;
          entry.settled = true;
          reject(e);
        },
      };
      const queue = streams.get(stream);
      if (queue) queue.push(entry);
      else {
        const fresh = [entry];
        streams.set(stream, fresh);
        void drain(stream, fresh);
      }
    });

  return {
    /** Runs `work` alone on the stream, after everything queued before it. */
    exclusive: <T>(stream: string, work: () => Promise<T>): Promise<T> =>
      enqueue<T>(stream, {
        kind: null,
        max: 1,
        item: null,
        run: async ([entry]) => entry!.resolve(await work()),
      }),
    /** Queues `item`; the batch's `run` is given it with the items of its kind queued right behind it. */
    batched: <I, T>(stream: string, batch: Batchable<I, T>, item: I): Promise<T> =>
      enqueue<T>(stream, {
        kind: batch.kind,
        max: Math.max(1, batch.max),
        item,
        run: (entries) => batch.run(entries as unknown as readonly Waiting<I, T>[]),
      }),
  };
};

export type StreamQueues = ReturnType<typeof streamQueues>;
