/**
 * Tickets minted before a timed phase, in one queue the phase's clients draw from: a client
 * uses a ticket for its 64 requests, then takes the next. A client that finds the queue empty
 * mints one itself (counted: a mint waits for the projections, so it shows in the latencies).
 */
export interface Tickets {
  take(client: number): Promise<string>;
  /** A refused request: its ticket is dropped (it may be spent or dead), the next request takes another. */
  refused(client: number, ticket: string): void;
  inlineMints(): number;
}

const REQUESTS_PER_TICKET = 64;
const MINTS_AT_ONCE = 8;

export const mintTickets = async (mint: () => Promise<string>, clients: number, expectedPuts: number): Promise<Tickets> => {
  const queue: string[] = [];
  let wanted = Math.ceil(expectedPuts / REQUESTS_PER_TICKET) + clients;
  await Promise.all(
    Array.from({ length: MINTS_AT_ONCE }, async () => {
      while (wanted-- > 0) queue.push(await mint());
    }),
  );
  const held = new Map<number, { ticket: string; used: number }>();
  let inline = 0;
  return {
    async take(client) {
      let h = held.get(client);
      if (!h || h.used >= REQUESTS_PER_TICKET) {
        let ticket = queue.shift();
        if (ticket === undefined) {
          inline++;
          ticket = await mint();
        }
        h = { ticket, used: 0 };
        held.set(client, h);
      }
      h.used++;
      return h.ticket;
    },
    refused(client, ticket) {
      if (held.get(client)?.ticket === ticket) held.delete(client);
    },
    inlineMints: () => inline,
  };
};
