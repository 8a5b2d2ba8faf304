import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyReceipt } from '../../../adapters/keys/audit-key.ts';
import { caller } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
let svc: TestService;
let tenantN = 0;

/** A fresh tenant: notes (agents scribe, clerk), mail granted notes' tools; ada and bob start jobs. */
const tenant = async (settings: Record<string, unknown> = {}) => {
  const t = `rev${++tenantN}`;
  await svc.admin('POST', '/v1/tenants', {
    id: t,
    settings: {
      grants: { mail: ['plugin:notes'] },
      start_roles: ['admin'],
      start_teams: ['ops'],
      people: { 'user:ada': { roles: ['admin'], teams: ['ops'] }, 'user:bob': { roles: ['admin'], teams: [] } },
      ...settings,
    },
  });
  await svc.admin('POST', `/v1/tenants/${t}/plugins`, { name: 'notes', functions: ['save'], agents: ['scribe', 'clerk'] });
  await svc.admin('POST', `/v1/tenants/${t}/plugins`, { name: 'mail', functions: ['send'], agents: ['postman'] });
  return t;
};
const revoke = (t: string, revocations: unknown[]) => svc.admin('POST', `/v1/tenants/${t}/revocations`, { revocations });
const works = async (c: { rec: (b: unknown) => Promise<{ status: number; body: any }> }) => (await c.rec({ op: 'list' })).status === 200;

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => svc?.stop());

describe('revocation batches', () => {
  it('kill_agent stops exactly the reached jobs: a stopped job is refused, its sibling still works', async () => {
    const t = await tenant();
    const scribe = await caller(svc, t, { agent: 'scribe', start: { subject: 'user:ada' } });
    const clerk = await caller(svc, t, { agent: 'clerk', start: { subject: 'user:ada' } });
    const r = await revoke(t, [{ kind: 'kill_agent', agent: 'notes/scribe' }]);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ epoch: 2, stopped: [scribe.job], indeterminate: [] });
    expect(await scribe.rec({ op: 'list' })).toMatchObject({ status: 403, body: { error: 'revoked' } });
    expect(await works(clerk)).toBe(true);
    expect((await svc.admin('GET', `/v1/tenants/${t}/jobs/${scribe.job}`)).body.job.status).toBe('stopped');
    expect((await svc.admin('GET', `/v1/tenants/${t}`)).body.tenant.authority_epoch).toBe(2);
    // A new job starts on the new epoch and is not fenced by the old batch.
    const fresh = await caller(svc, t, { agent: 'clerk', start: { subject: 'user:ada' } });
    expect(await works(fresh)).toBe(true);
  });

  it('reaches a child through its chain', async () => {
    const t = await tenant();
    const parent = await svc.admin('POST', `/v1/tenants/${t}/jobs`, { id: 'p', agent: 'postman', plugin: 'mail', subject: 'user:ada' });
    expect(parent.status).toBe(201);
    const child = await svc.admin('POST', `/v1/tenants/${t}/jobs`, { id: 'c', agent: 'clerk', plugin: 'notes', subject: 'user:ada', parent: 'p' });
    expect(child.status).toBe(201);
    const r = await revoke(t, [{ kind: 'kill_agent', agent: 'mail/postman' }]);
    expect(r.body.stopped).toEqual(['c', 'p']);
  });

  it('a narrowed grant stops the jobs that held the scope through it, and only when no path is left', async () => {
    const t = await tenant({ grants: { mail: ['plugin:notes', 'tool:notes/save'] } });
    const mail = await caller(svc, t, { agent: 'postman', plugin: 'mail', fn: 'notes/save', start: { subject: 'user:ada' } });
    const notes = await caller(svc, t, { agent: 'scribe', start: { subject: 'user:ada' } });
    // tool:notes/save is still granted: plugin:notes is lost, and mail's block held it.
    const first = await revoke(t, [{ kind: 'grant_narrowed', grantee: 'mail', scope: 'tool:notes/save' }]);
    expect(first.body.stopped).toEqual([]);
    expect(first.body.receipt.revocations).toEqual([]);
    expect(await works(mail)).toBe(true);
    const second = await revoke(t, [{ kind: 'grant_narrowed', grantee: 'mail', scope: 'plugin:notes' }]);
    expect(second.body).toMatchObject({ epoch: 3, stopped: [mail.job] });
    expect(await works(mail)).toBe(false);
    expect(await works(notes)).toBe(true);
  });

  it('plugin_removed and api_key_revoked reach the jobs that ran as or under them', async () => {
    const t = await tenant();
    const viaMail = await caller(svc, t, { agent: 'postman', plugin: 'mail', fn: 'send', start: { subject: 'user:ada' } });
    const byKey = await caller(svc, t, { agent: 'scribe', start: { subject: 'apikey:k-17' } });
    const other = await caller(svc, t, { agent: 'clerk', start: { subject: 'apikey:k-18' } });
    expect((await revoke(t, [{ kind: 'api_key_revoked', key: 'k-17' }])).body.stopped).toEqual([byKey.job]);
    // Removing notes reaches every job whose chain reached into notes: mail's (granted) and clerk's.
    const removed = await revoke(t, [{ kind: 'plugin_removed', plugin: 'notes' }]);
    expect(removed.body.stopped.sort()).toEqual([other.job, viaMail.job].sort());
  });

  it("two changes that together close a person's last path stop their jobs, while either alone would not", async () => {
    for (const alone of [
      [{ kind: 'person_change', person: 'user:ada', remove_roles: ['admin'] }],
      [{ kind: 'person_change', person: 'user:ada', remove_teams: ['ops'] }],
    ]) {
      const t = await tenant();
      const ada = await caller(svc, t, { agent: 'scribe', start: { subject: 'user:ada' } });
      const r = await revoke(t, alone);
      expect(r.body).toMatchObject({ epoch: 2, stopped: [] });
      expect(r.body.receipt.revocations).toEqual([]);
      expect(await works(ada)).toBe(true);
    }
    const t = await tenant();
    const ada = await caller(svc, t, { agent: 'scribe', start: { subject: 'user:ada' } });
    const bob = await caller(svc, t, { agent: 'scribe', start: { subject: 'user:bob' } });
    const both = await revoke(t, [
      { kind: 'person_change', person: 'user:ada', remove_roles: ['admin'] },
      { kind: 'person_change', person: 'user:ada', remove_teams: ['ops'] },
    ]);
    expect(both.body).toMatchObject({ epoch: 2, stopped: [ada.job] });
    expect(both.body.receipt.revocations).toEqual([{ kind: 'person_revoked', person: 'user:ada' }]);
    expect(await works(ada)).toBe(false);
    expect(await works(bob)).toBe(true);
  });

  it('refuses an empty or malformed batch and writes nothing', async () => {
    const t = await tenant();
    const head = await svc.lastPosition();
    expect((await revoke(t, [])).status).toBe(400);
    expect((await revoke(t, [{ kind: 'kill_everything' }])).status).toBe(400);
    expect((await revoke(t, [{ kind: 'kill_agent', agent: 'no-slash' }])).body).toMatchObject({ error: 'invalid' });
    expect((await svc.admin('POST', '/v1/tenants/nobody/revocations', { revocations: [{ kind: 'api_key_revoked', key: 'x' }] })).status).toBe(404);
    expect(await svc.lastPosition()).toBe(head);
  });
});

describe('receipts', () => {
  it('are signed with the audit key; the CLI verifies one with the public key alone and refuses one with a changed byte', async () => {
    const t = await tenant();
    const job = await caller(svc, t, { agent: 'scribe', start: { subject: 'user:ada' } });
    const { receipt } = (await revoke(t, [{ kind: 'kill_agent', agent: 'notes/scribe' }])).body;
    expect(receipt).toMatchObject({ tenant: t, epoch: 2, stopped: [job.job], indeterminate: [], revocations: [{ kind: 'kill_agent', agent: 'notes/scribe' }] });
    const pem = await (await fetch(`${svc.url}/v1/audit-key`)).text();
    expect(pem).toContain('BEGIN PUBLIC KEY');
    expect(verifyReceipt(pem, receipt)).toEqual({ ok: true });

    const dir = mkdtempSync(path.join(tmpdir(), 'custodian-receipt-'));
    try {
      const file = path.join(dir, 'receipt.json');
      const key = path.join(dir, 'audit.pem');
      writeFileSync(file, JSON.stringify(receipt, null, 2));
      writeFileSync(key, pem);
      const cli = (f: string) => {
        try {
          return {
            code: 0,
            out: execFileSync(process.execPath, [path.join(root, 'bin/custodian.js'), 'receipt', 'verify', f, '--public-key', key], { encoding: 'utf8' }),
          };
        } catch (error) {
          const e = error as { status: number; stdout: string };
          return { code: e.status, out: e.stdout };
        }
      };
      expect(cli(file)).toEqual({ code: 0, out: expect.stringContaining('receipt verified') });
      // One changed byte: epoch 2 becomes epoch 3.
      const text = readFileSync(file, 'utf8');
      const changed = path.join(dir, 'changed.json');
      writeFileSync(changed, text.replace('"epoch": 2', '"epoch": 3'));
      expect(readFileSync(changed, 'utf8')).not.toBe(text);
      expect(cli(changed)).toEqual({ code: 1, out: expect.stringContaining('NOT verified') });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
