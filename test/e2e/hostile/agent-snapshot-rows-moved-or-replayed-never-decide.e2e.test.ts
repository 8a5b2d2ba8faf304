import { createHmac } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { memoryEventStore } from '../../../adapters/eventstore/memory.ts';
import { memoryKeystore } from '../../../adapters/keys/memory-keystore.ts';
import { collectionsService } from '../../../commands/collections.ts';
import { snapshotWritesSettled } from '../../../queries/snapshot-write.ts';
import { snapshotRows } from '../../support/snapshot-rows.ts';

/**
 * Whoever can write the snapshots table can move an agent's head or parts to another agent's
 * rows, put back an older head with its older parts, cut a part's text short or drop it: a
 * cold instance then answers every query, get, put and delete as the MAC-checked log has
 * them, never from the rows moved (a head opens only under its stream and revision, a part
 * only under the digest its head names).
 */
const mac = (tenant: string) => (input: string) => createHmac('sha256', `key-${tenant}`).update(input).digest('base64url');
/** The heads and parts are written after the answers that took them. */
const settle = snapshotWritesSettled;

/** Two agents of one tenant: `mine` has records r0–r59 (odd/even), `theirs` s0–s79 (all odd), each with snapshots. */
const world = async () => {
  const store = memoryEventStore();
  const keys = memoryKeystore();
  const { rows, store: snapshots } = snapshotRows();
  const warm = collectionsService({ store, keys, now: Date.now, snapshots, mac });
  for (const agent of ['mine', 'theirs']) expect(E.isRight(await warm.declare('acme', agent, [{ name: 'notes', people: [], fields: ['status'] }]))).toBe(true);
  for (let j = 0; j < 60; j++) expect(E.isRight(await warm.put('acme', 'mine', 'notes', `r${j}`, { status: j % 2 ? 'odd' : 'even' }, null))).toBe(true);
  await settle();
  // The head at revision 49 and its parts, as they were (the older snapshot an attacker puts back).
  const older = new Map([...rows].filter(([k]) => k.startsWith('agent:acme:mine')));
  for (let j = 60; j < 110; j++) expect(E.isRight(await warm.put('acme', 'mine', 'notes', `r${j}`, { status: j % 2 ? 'odd' : 'even' }, null))).toBe(true);
  for (let j = 0; j < 60; j += 7) expect(E.isRight(await warm.delete('acme', 'mine', 'notes', `r${j}`))).toBe(true);
  for (let j = 0; j < 80; j++) expect(E.isRight(await warm.put('acme', 'theirs', 'notes', `s${j}`, { status: 'odd' }, null))).toBe(true);
  await settle();
  const cold = () => collectionsService({ store, keys, now: Date.now, snapshots, mac });
  return { rows, older, cold, warm };
};

/** What the log has for `mine`: r0–r109 but every 7th below 60 deleted. */
const alive = Array.from({ length: 110 }, (_, j) => j).filter((j) => !(j < 60 && j % 7 === 0));
const ids = (js: number[]) => js.map((j) => `r${j}`).sort();

const decidesAsTheLog = async (svc: ReturnType<Awaited<ReturnType<typeof world>>['cold']>) => {
  const odd = await svc.query('acme', 'mine', 'notes', { status: 'odd' }, { limit: 100 });
  expect(E.isRight(odd) && odd.right.map((e) => e.id).sort()).toEqual(ids(alive.filter((j) => j % 2)));
  const first = await svc.query('acme', 'mine', 'notes', {}, { limit: 60 });
  const last = E.isRight(first) ? first.right.at(-1)! : null;
  const rest = last ? await svc.query('acme', 'mine', 'notes', {}, { limit: 100, after: { createdAt: last.createdAt, id: last.id } }) : null;
  expect(E.isRight(first) && rest && E.isRight(rest) && [...first.right, ...rest.right].map((e) => e.id).sort()).toEqual(ids(alive));
  expect((await svc.export('acme', 'mine')).map((e) => e.id).sort()).toEqual(ids(alive));
  const gone = await svc.get('acme', 'mine', 'notes', 'r7');
  expect(E.isRight(gone) && gone.right).toBe(null);
  const kept = await svc.get('acme', 'mine', 'notes', 'r8');
  expect(E.isRight(kept) && kept.right?.value).toEqual({ status: 'even' });
  expect(await svc.delete('acme', 'mine', 'notes', 'r14')).toEqual(E.right({ deleted: false }));
  expect(await svc.delete('acme', 'mine', 'notes', 'r15')).toEqual(E.right({ deleted: true }));
  const put = await svc.put('acme', 'mine', 'notes', 'r16', { status: 'odd' }, null);
  expect(E.isRight(put)).toBe(true);
};

describe("an agent's snapshot rows, tampered with", () => {
  it('untouched: a cold instance decides as the log (the baseline)', async () => {
    const w = await world();
    expect([...w.rows.keys()].some((k) => k.startsWith('agent:acme:mine#records.'))).toBe(true);
    await decidesAsTheLog(w.cold());
  });
  it("another agent's parts under this agent's part keys (same addresses) are never used", async () => {
    const w = await world();
    for (const [k, row] of [...w.rows]) {
      const m = /^agent:acme:theirs#(.*)$/.exec(k);
      if (m) w.rows.set(`agent:acme:mine#${m[1]}`, { ...row, revision: 10_000 });
    }
    await decidesAsTheLog(w.cold());
  });
  it("another agent's head in this agent's row is never used", async () => {
    const w = await world();
    w.rows.set('agent:acme:mine', w.rows.get('agent:acme:theirs')!);
    await decidesAsTheLog(w.cold());
  });
  it('an older head put back with its older parts is caught up with the log', async () => {
    const w = await world();
    for (const [k, row] of w.older) w.rows.set(k, row);
    await decidesAsTheLog(w.cold());
  });
  it('an older head put back over the newer parts is never used where they differ', async () => {
    const w = await world();
    w.rows.set('agent:acme:mine', w.older.get('agent:acme:mine')!);
    await decidesAsTheLog(w.cold());
  });
  it('parts cut short, emptied or dropped are never used', async () => {
    const w = await world();
    let n = 0;
    for (const [k, row] of [...w.rows])
      if (k.startsWith('agent:acme:mine#')) {
        if (n % 3 === 0) w.rows.set(k, { ...row, state: row.state.slice(0, row.state.length >> 1) });
        else if (n % 3 === 1) w.rows.set(k, { ...row, state: '' });
        else w.rows.delete(k);
        n++;
      }
    await decidesAsTheLog(w.cold());
  });
  it('a part moved to another address of the same map (its entries in the wrong slot of the trie) is never used', async () => {
    const w = await world();
    const parts = [...w.rows].filter(([k]) => k.startsWith('agent:acme:mine#records.'));
    for (let i = 0; i < parts.length; i++) w.rows.set(parts[i]![0], parts[(i + 1) % parts.length]![1]);
    await decidesAsTheLog(w.cold());
  });
});
