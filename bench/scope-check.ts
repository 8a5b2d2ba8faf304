import type { Json } from './api.ts';

/**
 * Records readable in `scopes` through the records API's `list` (newest version of each live
 * record, 200 a page), as the job that wrote them reads them: a correctness check after a
 * phase, not part of its figures. `withheld` counts records the list says it left out.
 */
export const countReadable = async (
  mint: () => Promise<string>,
  post: (ticket: string, body: Json) => Promise<{ status: number; answer: Json }>,
  scopes: readonly string[],
): Promise<{ records: number; withheld: number }> => {
  let records = 0;
  let withheld = 0;
  let cursor: string | undefined;
  let ticket = await mint();
  for (let page = 1; ; page++) {
    // A ticket answers 64 requests; a fresh one well before.
    if (page % 60 === 0) ticket = await mint();
    const { status, answer } = await post(ticket, { op: 'list', list: { scopes, limit: 200, ...(cursor ? { cursor } : {}) } });
    if (status !== 200) throw new Error(`list → ${status} ${JSON.stringify(answer).slice(0, 160)}`);
    const a = answer as { records: unknown[]; withheld?: number; next?: string; more?: boolean };
    records += a.records.length;
    withheld += a.withheld ?? 0;
    if (!a.more || !a.next) return { records, withheld };
    cursor = a.next;
  }
};
