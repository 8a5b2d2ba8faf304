import { randomBytes, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import * as E from 'fp-ts/lib/Either.js';
import { startService, type Service } from '../adapters/service.ts';
import { newAuditKey } from '../adapters/keys/audit-key.ts';
import { eventRegistry } from '../domain/events/registry.ts';

const ADMIN = 'bench-admin-key';
const RECORDS = 19_990;

/**
 * The first put into a 20,000-record scope by an instance that has never seen it: from the
 * scope's snapshot, and (the snapshot deleted) by replaying the whole stream. Each instance is
 * warmed on a small scope first, so the figure is the big scope's load alone.
 */
export const benchColdScope = async (url: string) => {
  const masterKey = randomBytes(32);
  const start = () => startService({ databaseUrl: url, adminKey: ADMIN, masterKey, auditKey: newAuditKey(), port: 0 });
  const admin = async (svc: Service, path: string, body: unknown) => {
    const res = await fetch(`${svc.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${path}: ${await res.text()}`);
    return (await res.json()) as { _meta: { 'oz0/records': { ticket: string } } };
  };
  const put = async (svc: Service, ticket: string, scope: string, key: string, expect: number) => {
    const res = await fetch(`${svc.url}/v1/records`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ticket}`, 'content-type': 'application/json' },
      body: JSON.stringify({ op: 'put', scope, record_key: key, body: {}, expect }),
    });
    if (res.status !== 200) throw new Error(`put: ${await res.text()}`);
  };
  const ticket = async (svc: Service, job: string) =>
    (await admin(svc, `/v1/tenants/bench/jobs/${job}/calls`, { function: 'save' }))._meta['oz0/records'].ticket;

  const seeder = await start();
  const stream = 'records:bench:notes:project:big';
  try {
    await admin(seeder, '/v1/tenants', { id: 'bench', settings: { caps: { records: 20_000, bytes: 1 << 30 } } });
    await admin(seeder, '/v1/tenants/bench/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] });
    await admin(seeder, '/v1/tenants/bench/jobs', { id: 'cold', agent: 'scribe', plugin: 'notes', subject: 'bench', purpose: 'routine:cold' });
    const now = Date.now();
    let revision: number | 'no_stream' = 'no_stream';
    for (let from = 0; from < RECORDS; from += 2000) {
      const events = [];
      for (let i = from; i < Math.min(RECORDS, from + 2000); i++) {
        events.push({
          event_id: randomUUID(),
          ...eventRegistry.encode({
            type: 'RecordVersionWritten',
            data: {
              tenant: 'bench',
              plugin: 'notes',
              scope: 'project:big',
              key: `k${i}`,
              version: 1,
              body: { k: randomUUID(), n: '', c: '' },
              body_bytes: 10,
              kind: 'note',
              state: 'active',
              supersedes: null,
              ends_at: now + 30 * 86_400_000,
              subject_kind: 'work',
              closed: false,
              purpose: 'routine:cold',
              labels: [],
              created_ms: now,
              writer: { job: 'cold', run: 1, call: 'seed', step: 1, agent: 'scribe', plugin: 'notes', tainted: false },
              data_subject: null,
              request_key: `seed#${i}`,
              dedupe: null,
            },
          }),
          metadata: { tenant: 'bench', causation_id: null, correlation_id: null },
        });
      }
      const appended = await seeder.store.append(stream, events, revision);
      if (E.isLeft(appended)) throw new Error('seeding conflicted');
      revision = appended.right.nextExpectedRevision;
    }
    // The seeder's first put replays the stream and leaves a snapshot.
    await put(seeder, await ticket(seeder, 'cold'), 'project:big', 'k0', 1);
  } finally {
    await seeder.close();
  }

  const coldPut = async (key: string) => {
    const svc = await start();
    try {
      const t = await ticket(svc, 'cold');
      await put(svc, t, `project:warm-${key}`, 'w', 0);
      const started = performance.now();
      await put(svc, t, 'project:big', key, 0);
      return performance.now() - started;
    } finally {
      await svc.close();
    }
  };
  const fromSnapshot = await coldPut('new-1');
  const probe = await start();
  await probe.pool.query('DELETE FROM custodian_snapshots WHERE stream = $1', [stream]);
  await probe.close();
  const replayed = await coldPut('new-2');
  console.log(
    `\nFirst put into a ${RECORDS + 1}-record scope by a fresh instance (over HTTP): from its snapshot ${fromSnapshot.toFixed(1)} ms; replaying the stream ${replayed.toFixed(1)} ms`,
  );
};
