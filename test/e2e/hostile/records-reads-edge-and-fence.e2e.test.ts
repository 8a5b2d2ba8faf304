import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ticketHash } from '../../../domain/shared/hash.ts';
import { caller, records } from '../../support/records.ts';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/service.ts';

/**
 * Red-team pass over issues 11 and 12 as merged: the records, export and edge holes found
 * against a running service.
 */
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ testClock: true });
  await svc.admin('POST', '/v1/tenants', {
    id: 'acme',
    settings: { person_memory: [{ agent: 'scribe', purpose: 'routine:r' }], retention_days: 0 },
  });
  await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe', 'helper'] });
});
afterAll(async () => svc?.stop());

const exportLines = async (tenant: string) => {
  const res = await fetch(`${svc.url}/v1/tenants/${tenant}/export?versions=true`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  expect(res.status).toBe(200);
  return (await res.text())
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
};

describe('a person record past its end (SPEC §7 "Ends": from that instant no read returns it)', () => {
  it('is not in an export taken before retention runs', async () => {
    const c = await caller(svc, 'acme', { purpose: 'routine:r' });
    const now = (await svc.admin('POST', '/v1/_clock', { advance_ms: 1 })).body.now_ms as number;
    const wrote = await c.rec({
      op: 'put',
      scope: 'agent:scribe',
      record_key: 'ada-notes',
      body: { text: 'ada likes tea' },
      expect: 0,
      subject_kind: 'person',
      ends_at: now + 60_000,
    });
    expect(wrote.status).toBe(200);
    expect((await exportLines('acme')).some((l) => l.key === 'ada-notes')).toBe(true);
    await svc.admin('POST', '/v1/_clock', { advance_ms: 120_000 });
    // Every records read already hides it ...
    const later = await caller(svc, 'acme', { purpose: 'routine:r' });
    expect((await later.rec({ op: 'get', scope: 'agent:scribe', record_key: 'ada-notes' })).body.record).toBeUndefined();
    // ... the export (another read, whose file can be imported elsewhere) must too.
    const lines = await exportLines('acme');
    expect(lines.filter((l) => l.key === 'ada-notes')).toEqual([]);
  });
});

describe('an acknowledged body is stored as sent', () => {
  it('does not answer 200 to a number it then stores altered', async () => {
    const c = await caller(svc, 'acme');
    const text = '{"op":"put","scope":"tenant","record_key":"numbers","body":{"big":12345678901234567890123,"negzero":-0},"expect":0}';
    const wrote = await records(svc, c.ticket, text);
    if (wrote.status === 200) {
      const raw = await fetch(`${svc.url}/v1/records`, {
        method: 'POST',
        headers: { authorization: `Bearer ${c.ticket}`, 'content-type': 'application/json' },
        body: JSON.stringify({ op: 'get', scope: 'tenant', record_key: 'numbers' }),
      }).then((r) => r.text());
      expect(raw).toContain('"big":12345678901234567890123');
      expect(raw).toContain('"negzero":-0');
    } else {
      // Refusing what JSON cannot carry back exactly (as 1e999 is) is the other honest answer.
      expect(wrote).toMatchObject({ status: 400, body: { error: 'invalid' } });
    }
  });
});

describe('malformed targets answer in the JSON error shape', () => {
  it.each(['/v1/tenants/%ZZ', '/v1/tenants/%ED%A0%80', '/v1/tenants/acme/jobs/%C0%80'])('%s is a 400 {"error":"invalid","field":…}', async (path) => {
    const res = await fetch(`${svc.url}${path}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    expect(res.status).toBe(400);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ error: 'invalid' });
    expect(typeof body.field).toBe('string');
  });
});

describe('the fence after tampering: the log decides, not a read model', () => {
  it('a killed job stays fenced when its JobStopped row and the revocation rows are deleted', async () => {
    const c = await caller(svc, 'acme', { agent: 'helper' });
    expect((await c.rec({ op: 'put', scope: 'tenant', record_key: 'helper-1', body: { a: 1 }, expect: 0 })).status).toBe(200);
    const kill = await svc.admin('POST', '/v1/tenants/acme/revocations', { revocations: [{ kind: 'kill_agent', agent: 'notes/helper' }] });
    expect(kill.body.stopped).toContain(c.job);
    // No request of this ticket between the kill and the edit: a fresh fence cache (or a
    // restarted service) folds the edited stream. (With the stopped state already cached by
    // stream revision, the deletion is not seen: the stream's head row did not move.)
    // The attacker with SQL access removes the stop from the log and the batch from the read model;
    // the batch itself (RevocationBatchApplied on the tenant stream) is still in the log.
    const stops = await svc.pool.query(`DELETE FROM custodian_events WHERE stream = $1 AND type = 'JobStopped'`, [`job:acme:${c.job}`]);
    expect(stops.rowCount).toBe(1);
    await svc.pool.query(`DELETE FROM rm_revocations WHERE tenant = 'acme'`);
    const before = await svc.lastPosition();
    const wrote = await c.rec({ op: 'put', scope: 'tenant', record_key: 'helper-2', body: { a: 2 }, expect: 0 });
    expect(wrote).toMatchObject({ status: 403, body: { error: 'revoked' } });
    expect(await svc.lastPosition()).toBe(before);
  });

  it("a grant written into the tenant's settings event in the log does not become envelope scopes a new job is MACed with", async () => {
    await svc.admin('POST', '/v1/tenants', { id: 'forged' });
    await svc.admin('POST', '/v1/tenants/forged/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] });
    await svc.admin('POST', '/v1/tenants/forged/plugins', { name: 'vault', functions: ['read'], agents: ['keeper'] });
    const keeper = await caller(svc, 'forged', { plugin: 'vault', agent: 'keeper', fn: 'read' });
    expect((await keeper.rec({ op: 'put', scope: 'tenant', record_key: 'secret', body: { pw: 'hunter2' }, expect: 0 })).status).toBe(200);
    const honest = await caller(svc, 'forged', { job: 'honest' });
    expect((await svc.admin('POST', `/v1/tenants/forged/jobs/${honest.job}/calls`, { function: 'vault/read' })).status).toBe(403);
    // One row edited: notes is granted vault's reach in the event that created the tenant.
    const edited = await svc.pool.query(
      `UPDATE custodian_events SET data = jsonb_set(data, '{settings,grants}', '{"notes":["plugin:vault"]}') WHERE stream = 'tenant:forged' AND type = 'TenantCreated'`,
    );
    expect(edited.rowCount).toBe(1);
    const started = await svc.admin('POST', '/v1/tenants/forged/jobs', { id: 'after-edit', agent: 'scribe', plugin: 'notes', subject: 's', input: 'x' });
    if (started.status === 201) {
      expect(started.body.job.scopes).not.toContain('plugin:vault');
      const minted = await svc.admin('POST', '/v1/tenants/forged/jobs/after-edit/calls', { function: 'vault/read' });
      expect(minted.status).toBe(403);
    } else {
      // Refusing to act on a log that does not verify is the other honest answer.
      expect(started.status).toBeGreaterThanOrEqual(400);
      expect(started.status).toBeLessThan(500);
    }
  });

  it('a ticket hash written into a CallMinted event and its read-model row does not mint a ticket', async () => {
    // A running job with a minted call whose ticket has not been used yet (as after a
    // restart, when the fence's cache is empty, any call is in this state).
    await caller(svc, 'acme', { job: 'forge-ticket' });
    // The attacker picks a ticket of their own and writes its hash where the victim's was.
    const forged = 'forged-ticket-chosen-by-the-attacker-0000000000';
    const hash = ticketHash(forged);
    const events = await svc.pool.query(
      `UPDATE custodian_events SET data = jsonb_set(data, '{ticket_hash}', to_jsonb($2::text)) WHERE stream = $1 AND type = 'CallMinted'`,
      ['job:acme:forge-ticket', hash],
    );
    expect(events.rowCount).toBe(1);
    const rows = await svc.pool.query(`UPDATE rm_calls SET ticket_hash = $1 WHERE tenant = 'acme' AND job = 'forge-ticket'`, [hash]);
    expect(rows.rowCount).toBe(1);
    const before = await svc.lastPosition();
    const wrote = await records(svc, forged, { op: 'put', scope: 'tenant', record_key: 'forge-2', body: { a: 2 }, expect: 0 });
    expect(wrote.status).toBeGreaterThanOrEqual(400);
    expect(await svc.lastPosition()).toBe(before);
  });
});
