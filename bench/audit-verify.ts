import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { startService, type Service } from '../adapters/service.ts';
import { createPool } from '../adapters/postgres/pool.ts';
import { postgresReadModelStore } from '../adapters/postgres/read-model-store.ts';
import { applySchema } from '../adapters/postgres/schema.ts';
import { createAuditProjection } from '../projections/audit.ts';
import { ADMIN, newServiceKeys, type ServiceKeys } from './api.ts';
import { serviceErrors } from './service-errors.ts';

/**
 * `BENCH_ONLY=auditverify`: a tenant log of BENCH_AUDIT_ENTRIES (10⁶) stored lines, downloaded
 * and verified as an auditor does it.
 * - The lines are written straight into the line store (custodian_audit_lines and the tenant's
 *   counter), each shaped like a real read entry (canonical JSON with seq, at, kind, job,
 *   agent, subject and the record read).
 * - The integrator builds the tree from them: entries integrated per second.
 * - The service starts on that database; `custodian audit download --out` and
 *   `custodian audit verify --vkey` run as child processes, as a user runs them: the wall time
 *   of each, the HTTP requests the service answered during the download and the bundle's size.
 */
const TENANT = 'big';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const run = promisify(execFile);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

const start = (databaseUrl: string, keys: ServiceKeys) =>
  startService({
    databaseUrl,
    adminKey: ADMIN,
    masterKey: keys.masterKey,
    auditKey: keys.auditKey,
    port: 0,
    logger: serviceErrors(new URL(databaseUrl).pathname.slice(1)).logger,
  });

const admin = async (svc: Service, method: string, route: string, body?: unknown) => {
  const r = await fetch(`${svc.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await r.text();
  if (!r.ok) throw new Error(`${method} ${route} → ${r.status} ${text.slice(0, 200)}`);
  return text;
};

/** `entries` read lines after the tenant's `from` lines, written as the commit path writes them (line, columns, counter). */
const fillLines = async (pool: ReturnType<typeof createPool>, from: number, entries: number) => {
  const CHUNK = 100_000;
  for (let lo = from; lo < from + entries; lo += CHUNK) {
    const hi = Math.min(from + entries, lo + CHUNK);
    await pool.query(
      `INSERT INTO custodian_audit_lines (tenant, seq, at, kind, job, subject, record_refs, line)
       SELECT $1, s, 1700000000000 + s, 'read', 'job-' || (s % 97) || '@1', 'user:s' || (s % 1000),
              ARRAY['project:big#k' || s || '#1'],
              '{"agent":"scribe","at":' || (1700000000000 + s) || ',"job":"job-' || (s % 97) || '@1","kind":"read","purpose":"bench",'
              || '"records":[{"key":"k' || s || '","scope":"project:big","version":1}],"seq":' || s || ',"subject":"user:s' || (s % 1000) || '"}'
       FROM generate_series($2::bigint, $3::bigint - 1) AS s`,
      [TENANT, lo, hi],
    );
  }
  await pool.query(`INSERT INTO custodian_audit_sizes (tenant, size) VALUES ($1, $2) ON CONFLICT (tenant) DO UPDATE SET size = EXCLUDED.size`, [
    TENANT,
    from + entries,
  ]);
};

export const benchAuditVerify = async (dbUrl: string, entries: number) => {
  console.log(`\n## A ${entries}-entry tenant log downloaded and verified (BENCH_ONLY=auditverify)`);
  const keys = newServiceKeys();
  const dir = mkdtempSync(path.join(tmpdir(), 'custodian-auditverify-'));
  const pool = createPool(dbUrl, 4);
  try {
    await applySchema(pool);
    // The tenant made as users make it; the service then stops while its log is filled.
    let svc = await start(dbUrl, keys);
    await admin(svc, 'POST', '/v1/tenants', { id: TENANT });
    await svc.runner.catchUp();
    await svc.close();
    const { rows } = await pool.query<{ size: string }>('SELECT size FROM custodian_audit_sizes WHERE tenant = $1', [TENANT]);
    const before = Number(rows[0]?.size ?? 0);
    const filled = performance.now();
    await fillLines(pool, before, entries - before);
    await pool.query('ANALYZE custodian_audit_lines');
    console.log(`  ${entries - before} read lines stored in SQL in ${seconds(performance.now() - filled)} (after the tenant's own ${before})`);

    // The integrator alone over every stored line, one run (as a rebuild runs it).
    const models = postgresReadModelStore(pool);
    const audit = createAuditProjection();
    const integrating = performance.now();
    await models.transaction((sql) => audit.applyBatch!(sql, [], { after: 0, to: 1 }));
    const integrated = performance.now() - integrating;
    const head = Number((await pool.query(`SELECT size FROM rm_audit_heads WHERE tenant = $1`, [TENANT])).rows[0].size);
    console.log(`  integrated: ${head} entries in ${seconds(integrated)} = ${Math.round(head / (integrated / 1000))} entries/s`);
    await pool.query('ANALYZE rm_audit_nodes');

    svc = await start(dbUrl, keys);
    let requests = 0;
    svc.http.server.on('request', () => requests++);
    try {
      const signing = performance.now();
      const checkpoint = JSON.parse(await admin(svc, 'GET', `/v1/tenants/${TENANT}/audit/checkpoint`)) as { size: number };
      console.log(`  checkpoint of size ${checkpoint.size} signed and served in ${(performance.now() - signing).toFixed(1)} ms`);
      const vkey = await admin(svc, 'GET', '/v1/audit-key?format=vkey');
      const env = { ...process.env, CUSTODIAN_ADMIN_KEY: ADMIN };
      const cli = path.join(root, 'bin/custodian.js');
      const bundle = path.join(dir, 'bundle.jsonl');

      requests = 0;
      const downloading = performance.now();
      await run(process.execPath, [cli, 'audit', 'download', '--tenant', TENANT, '--url', svc.url, '--out', bundle], { env });
      const downloaded = performance.now() - downloading;
      console.log(`  custodian audit download: ${seconds(downloaded)} wall, ${requests} HTTP requests, bundle ${(statSync(bundle).size / 1e6).toFixed(0)} MB`);

      const verifying = performance.now();
      const verified = await run(process.execPath, [cli, 'audit', 'verify', bundle, '--vkey', vkey.trim(), '--tenant', TENANT], { env });
      const verifiedMs = performance.now() - verifying;
      console.log(`  custodian audit verify: ${seconds(verifiedMs)} wall: ${verified.stdout.trim()}`);
      console.log(`  download + verify: ${seconds(downloaded + verifiedMs)} (goal: under a minute; the machine is shared, figures are noisy)`);
    } finally {
      await svc.close();
    }
  } finally {
    await pool.end();
    rmSync(dir, { recursive: true, force: true });
  }
};
