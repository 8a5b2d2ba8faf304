import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, records, type Caller } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * Puts from many clients and two instances share commits (group commit): each is still
 * decided on its own stream's revision, a loser is decided again on the newer state, and
 * every answer reads back. The records models are written with the append, so a put's
 * answer needs no projection runner at all.
 */
let a: TestService;
let b: TestService;
beforeAll(async () => {
  a = await startTestService({ blocking: true });
  b = await startTestService({ shareWith: a });
  await a.admin('POST', '/v1/tenants', { id: 'acme', settings: { caps: { records: 1000, bytes: 10_000_000 } } });
  await a.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] });
});
afterAll(async () => {
  await b?.stop();
  await a?.stop();
});

const callers = (count: number) => Promise.all(Array.from({ length: count }, () => caller(a, 'acme', { input: 'batch' })));
const via = (i: number) => (i % 2 === 0 ? a : b);

describe('group commit over HTTP (two instances, one database)', () => {
  it('answers concurrent puts to different and same streams correctly, re-deciding the losers', async () => {
    const cs = await callers(50);
    const answers = await Promise.all(
      cs.map((c: Caller, i) => {
        // 20 scopes of their own, 20 new keys in one shared scope, 10 writers on one key.
        const put =
          i < 20
            ? { scope: `project:own-${i}`, record_key: 'k', expect: 0 }
            : i < 40
              ? { scope: 'project:shared', record_key: `k-${i}`, expect: 0 }
              : { scope: 'project:shared', record_key: 'contended', expect: 0 };
        return records(via(i), c.ticket, { op: 'put', body: { i }, ...put });
      }),
    );
    for (const [i, r] of answers.slice(0, 40).entries()) expect(r, `put ${i}`).toMatchObject({ status: 200, body: { version: 1 } });
    const contended = answers.slice(40);
    expect(contended.filter((r) => r.status === 200)).toHaveLength(1);
    expect(contended.filter((r) => r.status === 409 && r.body.error === 'stale' && r.body.current === 1)).toHaveLength(9);

    // Every acknowledged put reads back at once, through either instance.
    const reader = cs[0]!;
    for (let i = 0; i < 20; i++) {
      const got = await records(via(i + 1), reader.ticket, { op: 'get', scope: `project:own-${i}`, record_key: 'k' });
      expect(got.body.record).toMatchObject({ version: 1, body: { i } });
    }
    const listed = await reader.rec({ op: 'list', list: { scopes: ['project:shared'], limit: 100 } });
    expect(listed.body.records).toHaveLength(21);
    const winner = contended.findIndex((r) => r.status === 200) + 40;
    expect((await reader.rec({ op: 'get', scope: 'project:shared', record_key: 'contended' })).body.record.body).toEqual({ i: winner });
  });

  it('answers a put, and reads it back, while the projection runner cannot move', async () => {
    const c = await caller(a, 'acme', { input: 'no runner' });
    // Every runner (both instances') blocks on its checkpoint rows until this transaction ends.
    const blocker = await a.pool.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('SELECT name FROM custodian_checkpoints FOR UPDATE');
      const put = await c.rec({ op: 'put', scope: 'project:inline', record_key: 'r', body: { inline: true }, expect: 0 });
      expect(put).toMatchObject({ status: 200, body: { version: 1 } });
      expect((await c.rec({ op: 'get', scope: 'project:inline', record_key: 'r' })).body.record).toMatchObject({ version: 1, body: { inline: true } });
      expect((await c.rec({ op: 'list', list: { scopes: ['project:inline'] } })).body.records.map((r: { key: string }) => r.key)).toEqual(['r']);
      // The next put decides on the state the first one left.
      expect((await c.rec({ op: 'put', scope: 'project:inline', record_key: 'r', body: { inline: 2 }, expect: 1 })).body).toMatchObject({ version: 2 });
    } finally {
      await blocker.query('ROLLBACK');
      blocker.release();
    }
  });
});
