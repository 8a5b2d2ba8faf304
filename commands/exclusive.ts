/**
 * One command per stream at a time in this process: same-process writers queue instead of
 * racing to conflict. Other processes still meet at the store's expected revision.
 */
export const streamLocks = () => {
  const locks = new Map<string, Promise<unknown>>();
  return <T>(stream: string, work: () => Promise<T>): Promise<T> => {
    const previous = locks.get(stream) ?? Promise.resolve();
    const run = previous.then(work, work);
    const tail = run.catch(() => undefined);
    locks.set(stream, tail);
    void tail.then(() => {
      if (locks.get(stream) === tail) locks.delete(stream);
    });
    return run;
  };
};

export type StreamLocks = ReturnType<typeof streamLocks>;

/** A short, growing, jittered pause between attempts after a conflict. */
export const backoff = (attempt: number) => new Promise((r) => setTimeout(r, Math.random() * Math.min(50, 2 ** attempt)));
