// The seed's ask-the-seller example with Custodian's SDK, against a running service:
//   npm start                                   (prints the admin key on first start)
//   CUSTODIAN_ADMIN_KEY=<admin key> npx tsx examples/ask-the-seller.ts
// CUSTODIAN_URL picks another service (default http://127.0.0.1:41873). Running it again is fine.
import { strict as assert } from 'node:assert';
import { existsSync, readFileSync } from 'node:fs';
import { createRecords } from '@custodian/sdk';

const url = (process.env.CUSTODIAN_URL ?? 'http://127.0.0.1:41873').replace(/\/$/, '');
const adminKey = process.env.CUSTODIAN_ADMIN_KEY ?? (existsSync('data/secrets/admin-key') ? readFileSync('data/secrets/admin-key', 'utf8').trim() : '');
const admin = async (path: string, body: unknown) => {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

// The admin's part, once: a tenant (already there on a second run) and a key for the agent.
const tenant = await admin('/v1/tenants', { id: 'shop' });
assert.ok(tenant.status === 201 || tenant.status === 409, `creating the tenant answered ${tenant.status}: ${JSON.stringify(tenant.body)}`);
const issued = await admin('/v1/tenants/shop/agent-keys', { agent: 'market' });
assert.equal(issued.status, 201, `issuing the agent key answered ${issued.status}: ${JSON.stringify(issued.body)}`);

// The agent's part: its collections, declared as in the seed's createAgent({ records }).
const records = createRecords({
  url,
  key: issued.body.key as string,
  collections: { questions: { people: ['buyer', 'seller'], fields: ['listing', 'status'] } },
});

// Your listings' sellers, by listing id.
const SELLERS: Record<string, string> = { 'bike-42': 'phone:+15555550102' };

interface Question {
  listing: string;
  question: string;
  buyer: string;
  seller: string;
  status: 'waiting' | 'answered';
  replyTo: { channel: string; address: string } | null;
  askedAt: number;
  answer?: string;
}

// The two tools of the seed, with the context a runtime would give them.
const askSeller = async ({ listing, question }: { listing: string; question: string }, context: { person: string; idempotencyKey: string }) => {
  const seller = SELLERS[listing];
  if (!seller) return { error: `There is no listing ${listing}.` };
  const id = `${listing}:${context.idempotencyKey}`;
  await records.put('questions', id, { listing, question, buyer: context.person, seller, status: 'waiting', replyTo: null, askedAt: Date.now() });
  return { id, status: 'waiting' };
};
const questionsForMe = async (context: { person: string }) => {
  const waiting = await records.query<Question>('questions', { seller: context.person, status: 'waiting' });
  return waiting.map(({ id, value }) => ({ id, listing: value.listing, question: value.question }));
};

const maria = { person: 'phone:+15555550101', idempotencyKey: 'turn-1' };
const sam = { person: 'phone:+15555550102' };

console.log('Maria asks:', await askSeller({ listing: 'bike-42', question: 'Does the bike-42 come with lights?' }, maria));
// The same turn run again (a cut-off retried) replaces the record: still one question.
await askSeller({ listing: 'bike-42', question: 'Does the bike-42 come with lights?' }, maria);
const forSam = await questionsForMe(sam);
console.log('Waiting for Sam:', forSam);
assert.deepEqual(forSam, [{ id: 'bike-42:turn-1', listing: 'bike-42', question: 'Does the bike-42 come with lights?' }]);
assert.deepEqual(await questionsForMe(maria), []); // Maria sells nothing

// Sam answers: the whole value is replaced, createdAt stays.
const asked = (await records.get<Question>('questions', 'bike-42:turn-1'))!;
await records.put('questions', 'bike-42:turn-1', { ...asked, status: 'answered', answer: 'Yes, front and back.' });
console.log('After the answer, waiting for Sam:', await questionsForMe(sam));
assert.deepEqual(await questionsForMe(sam), []);

// Maria asks to be forgotten: her phone number in either form finds her records.
const forgotten = await records.forgetPerson('+15555550101');
console.log('Forgotten records of Maria:', forgotten);
assert.equal(forgotten, 1);
assert.equal(await records.get('questions', 'bike-42:turn-1'), null);
console.log('ask-the-seller: done');
