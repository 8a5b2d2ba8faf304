import { describe, expect, it } from 'vitest';
import { RecordsError, type CollectionSpec, type Records } from '../../../sdk/records.ts';

/**
 * The SDK's contract, run against every form of the store. `open` gives a client on one
 * agent's records; calling it again with another declaration reaches the same records (a
 * restarted agent). `fresh` gives an agent of its own.
 */
export interface RecordsForm {
  readonly name: string;
  fresh(): Promise<{ open(collections: Record<string, CollectionSpec>): Records }>;
  /** Brings the agent to `n` records in `collection` without a put each (fast fill for the limit). */
  fill?(records: Records, collection: string, n: number): Promise<void>;
}

const questions = { questions: { people: ['buyer', 'seller'], fields: ['listing', 'status'] } };
const expectRefusal = async (p: Promise<unknown>, message: string | RegExp) => {
  const error = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  if (typeof message === 'string') expect((error as Error).message).toBe(message);
  else expect((error as Error).message).toMatch(message);
};

export const recordsContract = (form: RecordsForm) =>
  describe(`agent records contract: ${form.name}`, () => {
    const agent = async (collections: Record<string, CollectionSpec> = questions) => (await form.fresh()).open(collections);

    it('keeps, replaces and deletes a value; createdAt stays from the first put', async () => {
      const r = await agent();
      expect(r.collections).toEqual(['questions']);
      expect(await r.get('questions', 'q1')).toBeNull();
      await r.put('questions', 'q1', { listing: 'bike-42', status: 'waiting', skip: undefined });
      expect(await r.get('questions', 'q1')).toEqual({ listing: 'bike-42', status: 'waiting' });
      const [first] = await r.query('questions');
      await r.put('questions', 'q1', { status: 'answered' });
      const [second] = await r.query('questions');
      expect(second).toMatchObject({ id: 'q1', value: { status: 'answered' }, createdAt: first!.createdAt });
      expect(second!.updatedAt).toBeGreaterThanOrEqual(first!.updatedAt);
      expect(await r.delete('questions', 'q1')).toBe(true);
      expect(await r.delete('questions', 'q1')).toBe(false);
      expect(await r.get('questions', 'q1')).toBeNull();
      // Put again after a delete: a new record with a key of its own, untouched by the delete's shredding.
      const again = await Promise.all([
        r.put('questions', 'q1', { status: 'again' }),
        r.delete('questions', 'q1').then(() => r.put('questions', 'q1', { status: 'again' })),
      ]);
      expect(again).toHaveLength(2);
      expect(await r.get('questions', 'q1')).toEqual({ status: 'again' });
    });

    it('the seed example: the seller sees the waiting question, the buyer sees none', async () => {
      const r = await agent();
      await r.put('questions', 'bike-42:k1', {
        listing: 'bike-42',
        question: 'Does the bike-42 come with lights?',
        buyer: 'phone:+15555550101',
        seller: 'phone:+15555550102',
        status: 'waiting',
        replyTo: null,
        askedAt: 1792836642480,
      });
      const forSeller = await r.query('questions', { seller: 'phone:+15555550102', status: 'waiting' });
      expect(forSeller.map((e) => e.id)).toEqual(['bike-42:k1']);
      expect(await r.query('questions', { seller: 'phone:+15555550101', status: 'waiting' })).toEqual([]);
    });

    it('refuses an undeclared collection and an undeclared query field with what to change', async () => {
      const r = await agent();
      await expectRefusal(
        r.put('orders', 'o1', {}),
        'records: no collection named orders: declare it in createRecords({ collections: { "orders": { people: [], fields: [] } } })',
      );
      await expectRefusal(r.query('questions', { askedAt: 1 }), 'records: questions cannot be queried by askedAt: declare it in fields');
    });

    it('queries compare JSON values and never match null or a missing field', async () => {
      const r = await agent({ c: { fields: ['n'] } });
      await r.put('c', 'number', { n: 1 });
      await r.put('c', 'text', { n: '1' });
      await r.put('c', 'null', { n: null });
      await r.put('c', 'missing', {});
      expect((await r.query('c', { n: 1 })).map((e) => e.id)).toEqual(['number']);
      expect((await r.query('c', { n: '1' })).map((e) => e.id)).toEqual(['text']);
      expect(await r.query('c', { n: null })).toEqual([]);
      expect((await r.query('c')).map((e) => e.id)).toEqual(['number', 'text', 'null', 'missing']);
    });

    it('pages oldest first by createdAt then id, 50 by default, at most 100, never skipping or repeating when records are added between pages', async () => {
      const r = await agent({ c: { fields: ['s'] } });
      for (let i = 0; i < 120; i++) await r.put('c', `r${String(i).padStart(3, '0')}`, { s: 'x' });
      expect(await r.query('c', { s: 'x' })).toHaveLength(50);
      await expectRefusal(r.query('c', {}, { limit: 101 }), /^records: limit 101 is out of range: /);
      const seen: string[] = [];
      let after: { createdAt: number; id: string } | undefined;
      for (let page = 0; ; page++) {
        const entries = await r.query('c', { s: 'x' }, { limit: 100, ...(after ? { after } : {}) });
        seen.push(...entries.map((e) => e.id));
        if (page === 0) for (let i = 0; i < 5; i++) await r.put('c', `a${i}`, { s: 'x' });
        if (entries.length < 100) break;
        after = entries.at(-1);
      }
      expect(seen).toHaveLength(125);
      expect(new Set(seen).size).toBe(125);
      expect(seen.slice(-5)).toEqual(['a0', 'a1', 'a2', 'a3', 'a4']);
    });

    it('every refusal is a RecordsError with the status and code the HTTP API answers (0 when refused before sending)', async () => {
      const r = await agent();
      const refusal = (p: Promise<unknown>) =>
        p.then(
          () => null,
          (e: unknown) => (e instanceof RecordsError ? { status: e.status, code: e.code, message: e.message } : e),
        );
      expect(await refusal(r.get('drafts', 'd1'))).toEqual({
        status: 404,
        code: 'not_found',
        message: expect.stringMatching(/^records: no collection named drafts/),
      });
      expect(await refusal(r.put('questions', 'q', { pad: 'x'.repeat(65_536) }))).toMatchObject({ status: 413, code: 'too_large' });
      expect(await refusal(r.put('questions', 'i'.repeat(129), {}))).toMatchObject({ status: 400, code: 'invalid' });
      expect(await refusal(r.put('questions', 'q', { at: new Date(0) }))).toMatchObject({ status: 0, code: 'invalid' });
      const f = await form.fresh();
      let thrown: unknown = null;
      try {
        f.open({ '1st': {} });
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(RecordsError);
      expect(thrown).toMatchObject({ status: 0, code: 'invalid', message: expect.stringMatching(/^records: collection name "1st" is not allowed/) });
    });

    it('limits at their edges: value bytes, id length, declared string length', async () => {
      const r = await agent({ c: { fields: ['s'] } });
      const sized = (n: number) => ({ pad: 'x'.repeat(n - '{"pad":""}'.length) });
      await r.put('c', 'big', sized(65_536));
      await expectRefusal(r.put('c', 'big', sized(65_537)), 'records: value is 65,537 bytes as JSON: keep it to 65,536 bytes or less');
      await r.put('c', 'i'.repeat(128), {});
      await expectRefusal(r.put('c', 'i'.repeat(129), {}), 'records: id has 129 characters: use 1 to 128 characters');
      await r.put('c', 's', { s: 's'.repeat(256) });
      await expectRefusal(
        r.put('c', 's', { s: 's'.repeat(257) }),
        'records: c.s is 257 characters: keep a declared field to 256 characters, or leave it undeclared',
      );
    });

    it('the SDK refuses what JSON would change, naming the path', async () => {
      const r = await agent();
      class Thing {}
      const cases: [unknown, string][] = [
        [{ at: new Date() }, 'records: value.at is a Date: keep a time as milliseconds (Date.now()) or ISO text'],
        [{ n: { x: NaN } }, 'records: value.n.x is NaN: keep only finite numbers'],
        [{ n: Infinity }, 'records: value.n is Infinity: keep only finite numbers'],
        [{ m: new Map() }, 'records: value.m is a Map: keep a plain object or a list'],
        [{ s: [new Set()] }, 'records: value.s[0] is a Set: keep a plain object or a list'],
        [{ t: new Thing() }, 'records: value.t is an instance of Thing: keep a plain object'],
        [{ f: () => 1 }, 'records: value.f is a function: keep only JSON data'],
        [{ l: [1, undefined] }, 'records: value.l[1] is undefined: leave the item out of the list, or use null'],
      ];
      for (const [value, message] of cases) await expectRefusal(r.put('questions', 'q', value as object), message);
      expect(await r.get('questions', 'q')).toBeNull();
    });

    it('a declaration that breaks a limit throws at once', async () => {
      const f = await form.fresh();
      expect(() => f.open({ c: { fields: Array.from({ length: 9 }, (_, i) => `f${i}`) } })).toThrow(/^records: c declares 9 fields: declare at most 8/);
      expect(() => f.open(Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`c${i}`, {}])))).toThrow(/^records: 21 collections declared/);
    });

    it('a declaration that gains a field indexes every record already kept; an older one takes nothing away', async () => {
      const f = await form.fresh();
      const before = f.open({ notes: { fields: [] } });
      await before.put('notes', 'n1', { about: 'maria', kind: 'x' });
      await before.put('notes', 'n2', { about: 5 });
      const after = f.open({ notes: { people: ['about'], fields: [] } });
      expect((await after.query('notes', { about: 'maria' })).map((e) => e.id)).toEqual(['n1']);
      expect(await after.query('notes', { about: 5 })).toEqual([]);
      expect(await after.get('notes', 'n2')).toEqual({ about: 5 });
      const older = f.open({ notes: {} });
      await older.put('notes', 'n3', { about: 'maria' });
      expect((await older.query('notes', { about: 'maria' })).map((e) => e.id)).toEqual(['n1', 'n3']);
    });

    it('forgetting a person deletes records naming them in a people field by either phone form, keeps one naming them elsewhere', async () => {
      const r = await agent({ questions: questions.questions, notes: { people: ['who'] } });
      await r.put('questions', 'q1', { buyer: '+15550100100', text: 'keep me secret' });
      await r.put('notes', 'n1', { who: 'phone:+15550100100' });
      await r.put('notes', 'n2', { who: 'phone:+15550100199', mentions: 'phone:+15550100100' });
      await r.put('notes', 'n3', { who: 'key:maria' });
      expect(await r.forgetPerson('phone:+15550100100', ['key:maria'])).toBe(3);
      expect(await r.get('questions', 'q1')).toBeNull();
      expect(await r.query('notes')).toMatchObject([{ id: 'n2' }]);
      const exported = [];
      for await (const e of r.export()) exported.push(e);
      expect(exported).toMatchObject([{ collection: 'notes', id: 'n2' }]);
    });

    it('a put from a tool started before the person was forgotten is refused', async () => {
      const r = await agent();
      const started = Date.now() - 60_000;
      await r.forgetPerson('phone:+15550100100');
      await expectRefusal(
        r.put('questions', 'q1', { buyer: '+15550100100' }, { startedMs: started }),
        'records: not kept: the person was forgotten while the tool ran',
      );
      await r.put('questions', 'q1', { buyer: '+15550100100' }, { startedMs: Date.now() + 60_000 });
    });

    it('export gives every record oldest first', async () => {
      const r = await agent({ a: {}, b: {} });
      await r.put('b', 'x', { n: 1 });
      await r.put('a', 'y', { n: 2 });
      await r.put('b', 'x', { n: 3 });
      const out = [];
      for await (const e of r.export()) out.push(e);
      expect(out.map((e) => [e.collection, e.id, e.value])).toEqual([
        ['b', 'x', { n: 3 }],
        ['a', 'y', { n: 2 }],
      ]);
    });

    it.runIf(form.fill !== undefined)(
      '50 concurrent puts of new records into an agent holding 9,990: exactly 10 written',
      async () => {
        const r = await agent({ c: {} });
        await form.fill!(r, 'c', 9_990);
        const results = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => r.put('c', `new${i}`, { i })));
        expect(results.filter((x) => x.status === 'fulfilled')).toHaveLength(10);
        for (const x of results) if (x.status === 'rejected') expect((x.reason as Error).message).toMatch(/^records: the agent holds 10,000 records: /);
        let count = 0;
        for await (const _ of r.export()) count++;
        expect(count).toBe(10_000);
      },
      // The fill is 9,990 puts, each sealed under its own data key: flat per put, but 10–11 ms
      // each on a 2-core machine with both cores also busy with other work (113 s in all).
      360_000,
    );
  });
