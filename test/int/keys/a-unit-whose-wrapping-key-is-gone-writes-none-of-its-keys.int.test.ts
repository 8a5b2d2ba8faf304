import { randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMIT_CALL, commitParams, type CommitRow, type CommitUnit } from '../../../adapters/eventstore/postgres-group-commit.ts';
import { createPool } from '../../../adapters/postgres/pool.ts';
import type { AppendRow } from '../../../domain/ports/append-rows.ts';
import { freshDatabase } from '../../support/database.ts';
import { testEvent as ev } from '../../support/events.ts';

/**
 * A put's new data key commits only wrapped by its data subject's key as it stands: a shred
 * (the subject's key deleted), or the key made again since, refuses the unit, and a refused
 * unit leaves none of the keys it made — and never another writer's. The commit compares the
 * wrapped bytes it is given with the rows' (they travel as base64 in the batch's document), so
 * every byte value, NUL and 0xff among them, must come through exactly.
 */

let db: Awaited<ReturnType<typeof freshDatabase>>;
let pool: pg.Pool;

beforeAll(async () => {
  db = await freshDatabase();
  pool = createPool(db.url, 2);
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

/** Wrapped bytes with every byte value in them (and a length base64 pads). */
const wrapped = () => Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), randomBytes(13)]);

const subjectKey = async (subject: string, bytes: Buffer) =>
  pool.query("INSERT INTO custodian_subject_keys (tenant, subject, wrapped) VALUES ('t', $1, $2)", [subject, bytes]);

const made = (subject: string, bytes: Buffer): AppendRow => ({ kind: 'subject_key_made', id: `t\n${subject}`, row: ['t', subject, bytes] });
const dataKey = (id: string, record: string, owner: string, bytes: Buffer, kek: Buffer | null): AppendRow => ({
  kind: 'data_key_made',
  id,
  row: [id, 't', 'p', 's', record, owner, bytes, kek],
});

/** One unit, alone in its batch: its verdict. */
const commit = async (stream: string, rows: readonly AppendRow[]) => {
  const unit: CommitUnit = { guard: null, after: null, watched: false, unmoved: [], stream, expected: 'no_stream', events: [ev()], rows, lines: [] };
  const { rows: answered } = await pool.query<CommitRow>(COMMIT_CALL, commitParams([], [unit]));
  return answered[0]!.verdict;
};

const keyOf = async (id: string) =>
  (await pool.query<{ wrapped: Buffer }>('SELECT wrapped FROM custodian_data_keys WHERE key_id = $1', [id])).rows[0]?.wrapped ?? null;
const subjectKeyOf = async (subject: string) =>
  (await pool.query<{ wrapped: Buffer }>("SELECT wrapped FROM custodian_subject_keys WHERE tenant = 't' AND subject = $1", [subject])).rows[0]?.wrapped ?? null;
const written = async (stream: string) =>
  (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM custodian_streams WHERE stream = $1', [stream])).rows[0]!.n +
  (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM custodian_events WHERE stream = $1', [stream])).rows[0]!.n;

describe('a unit whose wrapping key is gone', () => {
  it('commits a new data key wrapped by the subject key as it stands, its bytes exactly as made', async () => {
    const kek = wrapped();
    await subjectKey('alice', kek);
    const id = randomUUID();
    const bytes = wrapped();
    expect(await commit(`s:${randomUUID()}`, [dataKey(id, 'k1', 'subject:alice', bytes, kek)])).toBe('committed');
    expect(await keyOf(id)).toEqual(bytes);
  });

  it('writes nothing when the subject key was shredded, or made again, since the put wrapped under it', async () => {
    const kek = wrapped();
    await subjectKey('bob', kek);
    await pool.query("DELETE FROM custodian_subject_keys WHERE tenant = 't' AND subject = 'bob'");
    const shredded = { stream: `s:${randomUUID()}`, id: randomUUID() };
    expect(await commit(shredded.stream, [dataKey(shredded.id, 'k2', 'subject:bob', wrapped(), kek)])).toBe('row_taken');
    expect([await written(shredded.stream), await keyOf(shredded.id)]).toEqual([0, null]);

    await subjectKey('bob', wrapped());
    const remade = { stream: `s:${randomUUID()}`, id: randomUUID() };
    expect(await commit(remade.stream, [dataKey(remade.id, 'k3', 'subject:bob', wrapped(), kek)])).toBe('row_taken');
    expect([await written(remade.stream), await keyOf(remade.id)]).toEqual([0, null]);
  });

  it('takes back the subject key a refused unit made, and leaves the rows another writer made', async () => {
    // Another writer's data key, whose id the unit's new key also names: the unit is refused after making its subject key.
    const theirs = { id: randomUUID(), bytes: wrapped() };
    await pool.query(
      "INSERT INTO custodian_data_keys (key_id, tenant, plugin, scope, record_key, owner, wrapped) VALUES ($1, 't', 'p', 's', 'k4', 'tenant', $2)",
      [theirs.id, theirs.bytes],
    );
    const kek = wrapped();
    const stream = `s:${randomUUID()}`;
    expect(await commit(stream, [made('carol', kek), dataKey(theirs.id, 'k5', 'subject:carol', wrapped(), kek)])).toBe('row_taken');
    expect([await written(stream), await subjectKeyOf('carol'), await keyOf(theirs.id)]).toEqual([0, null, theirs.bytes]);

    // Another writer made the subject's key first: the unit's own is refused, theirs stays.
    const first = wrapped();
    await subjectKey('dave', first);
    const late = { stream: `s:${randomUUID()}`, id: randomUUID() };
    const mine = wrapped();
    expect(await commit(late.stream, [made('dave', mine), dataKey(late.id, 'k6', 'subject:dave', wrapped(), mine)])).toBe('row_taken');
    expect([await written(late.stream), await subjectKeyOf('dave'), await keyOf(late.id)]).toEqual([0, first, null]);
  });
});
