import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Bounds the bytes of large request bodies one process holds at once: a body is read only
 * once the ones in flight leave room for it (its declared length), else it waits its turn.
 * A parsed result is held several times over (text, value, stored form, sealed chunks), so
 * twenty 30 MiB results at once would otherwise hold gigabytes, which the allocator keeps.
 */
export const bodyGate = (maxBytes: number) => {
  let inFlight = 0;
  const waiting: (() => void)[] = [];
  const held = new WeakMap<FastifyRequest, number>();
  const release = (req: FastifyRequest) => {
    const n = held.get(req);
    if (n === undefined) return;
    held.delete(req);
    inFlight -= n;
    while (waiting.length > 0) waiting.shift()!();
  };
  const acquire = async (req: FastifyRequest) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    const n = Number.isFinite(declared) && declared > 0 ? Math.min(declared, maxBytes) : 0;
    // One body alone is always let through, so a body of up to the route's own limit is never stuck.
    while (inFlight > 0 && inFlight + n > maxBytes) await new Promise<void>((resolve) => waiting.push(resolve));
    inFlight += n;
    held.set(req, n);
  };
  return {
    /** For `preParsing`: waits for room before the body is read. */
    preParsing: async (req: FastifyRequest, _reply: FastifyReply, payload: unknown) => {
      await acquire(req);
      return payload;
    },
    /** For `onResponse` and `onRequestAbort`: gives the room back. */
    done: async (req: FastifyRequest) => release(req),
  };
};

/** Large bodies (files, offloaded results) held at once by one process. */
export const LARGE_BODIES_IN_FLIGHT = 96 << 20;
