import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { allProjections } from '../../../projections/all.ts';
import { rebuildProjection } from '../../../projections/runner.ts';
import { postgresKeystore } from '../../../adapters/keys/keystore.ts';
import { postgresReadModelStore } from '../../../adapters/postgres/read-model-store.ts';
import { caller } from '../../support/records.ts';
import { scanDataDirectory } from '../../support/scan.ts';
import { dumpReadModels } from '../../support/dump.ts';
import { startTestService, type TestService } from '../../support/service.ts';

const BODY_MARKER = `plaintext-marker-${Date.now()}-d4c0e1`;
const DEDUPE_MARKER = `dedupe-marker-${Date.now()}-77aa`;
/** Stored in clear on purpose (a job's subject): proof that the scans see what is stored. */
const CONTROL_MARKER = `subject-marker-${Date.now()}-0b5e`;

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
  await svc.admin('POST', '/v1/tenants', { id: 'acme', settings: { person_shared_scopes: [] } });
  await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] });
  const c = await caller(svc, 'acme', { input: 'secrets', start: { subject: CONTROL_MARKER } });
  for (let i = 0; i < 5; i++) {
    const r = await c.rec({
      op: 'put',
      scope: 'tenant',
      record_key: `r${i}`,
      body: { text: `${BODY_MARKER} #${i}` },
      expect: 0,
      dedupe: `${DEDUPE_MARKER} ${i}`,
    });
    expect(r.status).toBe(200);
  }
  // The body is there for a reader: sealed, not lost.
  expect((await c.rec({ op: 'get', scope: 'tenant', record_key: 'r0' })).body.record.body.text).toBe(`${BODY_MARKER} #0`);
  await svc.pool.query('CHECKPOINT');
});
afterAll(async () => svc?.stop());

describe('bodies at rest', () => {
  it('no stored body or dedupe text appears in the PostgreSQL data directory', async (ctx) => {
    const dir = inject('databaseDataDir');
    if (!dir) ctx.skip(true, `the data directory of a ${inject('databaseSource')} server is not on this machine`);
    let control = 0;
    const scanned = scanDataDirectory(dir, (bytes, file) => {
      if (bytes.includes(CONTROL_MARKER)) control++;
      expect(bytes.includes(BODY_MARKER), file).toBe(false);
      expect(bytes.includes(DEDUPE_MARKER), file).toBe(false);
    });
    expect(scanned).toBeGreaterThan(1024 * 1024);
    expect(control).toBeGreaterThan(0);
  });

  it('no stored body or dedupe text appears in a pg_dump', async (ctx) => {
    let dump: string;
    try {
      dump = execFileSync('pg_dump', ['--dbname', svc.databaseUrl], { encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 });
    } catch (error) {
      ctx.skip(true, `pg_dump could not dump this server: ${(error as Error).message.split('\n')[0]}`);
      return;
    }
    expect(dump).toContain('custodian_events');
    expect(dump).toContain('RecordVersionWritten');
    expect(dump).toContain(CONTROL_MARKER);
    expect(dump).not.toContain(BODY_MARKER);
    expect(dump).not.toContain(DEDUPE_MARKER);
  });
});

describe('record read models', () => {
  it('rebuild from the log to the same rows', async () => {
    const db = postgresReadModelStore(svc.pool);
    const projections = allProjections({ sealer: await postgresKeystore(svc.pool, svc.masterKey) });
    const dump = () => dumpReadModels(db, projections);
    await svc.runner.catchUp();
    const before = await dump();
    expect(before.rm_record_versions).toHaveLength(5);
    expect(before.rm_dedupe_digests).toHaveLength(5);
    for (const p of projections) await rebuildProjection(svc.store, db, p);
    expect(await dump()).toEqual(before);
  });
});
