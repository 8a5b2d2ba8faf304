import { randomBytes } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../adapters/clock/system.ts';
import { postgresEventStore } from '../../../adapters/eventstore/postgres.ts';
import { newAuditKey } from '../../../adapters/keys/audit-key.ts';
import { createPool } from '../../../adapters/postgres/pool.ts';
import { startService, type Service } from '../../../adapters/service.ts';
import { tenantCommands } from '../../../commands/tenants.ts';
import { freshDatabase } from '../../support/database.ts';
import { ADMIN_KEY } from '../../support/service.ts';

let db: Awaited<ReturnType<typeof freshDatabase>>;
let pool: pg.Pool;
let svc: Service | null = null;
const masterKey = randomBytes(32);

const admin = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${svc!.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

beforeAll(async () => {
  db = await freshDatabase();
  pool = createPool(db.url, 4);
  // A log written before the authenticated store: events without a MAC.
  const legacy = tenantCommands(await postgresEventStore(pool), systemClock);
  expect(E.isRight(await legacy.create('old', {}))).toBe(true);
  expect(E.isRight(await legacy.installPlugin('old', { name: 'notes', functions: ['save'], agents: ['scribe'] }))).toBe(true);
});
afterAll(async () => {
  await svc?.close();
  await pool.end();
  await db.drop();
});

describe('events written before the log was authenticated', () => {
  it('are MACed once at the first start and read as before; an event written by hand afterwards is refused as tampered', async () => {
    svc = await startService({ databaseUrl: db.url, adminKey: ADMIN_KEY, masterKey, auditKey: newAuditKey(), port: 0 });
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM custodian_events WHERE NOT (metadata ? 'mac')`);
    expect(rows[0].n).toBe(0);
    // The read models are the runner's: a fresh instance applies the old log in the background.
    await svc.runner.catchUp();
    expect(await admin('GET', '/v1/tenants/old')).toMatchObject({ status: 200, body: { tenant: { id: 'old' } } });
    expect((await admin('POST', '/v1/tenants/old/jobs', { id: 'j1', agent: 'scribe', plugin: 'notes', subject: 's', input: 'x' })).status).toBe(201);

    // After the upgrade, an event appended without the key (straight into the table) is not trusted.
    const hand = tenantCommands(await postgresEventStore(pool), systemClock);
    expect(E.isRight(await hand.installPlugin('old', { name: 'vault', functions: ['read'], agents: ['keeper'] }))).toBe(true);
    const before = Number((await pool.query('SELECT max(position) AS p FROM custodian_events')).rows[0].p);
    const refused = await admin('POST', '/v1/tenants/old/jobs', { id: 'j2', agent: 'scribe', plugin: 'notes', subject: 's', input: 'x' });
    expect(refused).toMatchObject({ status: 409, body: { error: 'tampered', stream: 'tenant:old', reason: 'the event carries no MAC' } });
    expect(Number((await pool.query('SELECT max(position) AS p FROM custodian_events')).rows[0].p)).toBe(before);
  });
});
