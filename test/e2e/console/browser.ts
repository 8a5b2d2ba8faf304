import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { canonicalJson } from '../../../domain/shared/hash.ts';
import { leafHash, nodeHash } from '../../../domain/audit/merkle.ts';
import type { TestService } from '../../support/service.ts';

/** Shared by the console's browser tests: Debian's chromium (never a downloaded one), screenshots, axe-core, a large seeded log. */

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const shots = path.join(root, 'test-output', 'console');

export const findChromium = (): string | null => {
  const given = process.env.CUSTODIAN_CHROMIUM;
  if (given) return existsSync(given) ? given : null;
  for (const p of ['/usr/bin/chromium', '/usr/bin/chromium-browser']) if (existsSync(p)) return p;
  try {
    const found = execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).trim();
    return found || null;
  } catch {
    return null;
  }
};

export const screenshot = async (page: Page, name: string) => {
  mkdirSync(shots, { recursive: true });
  const file = path.join(shots, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  console.log(`screenshot: ${path.relative(root, file)}`);
  return file;
};

const AXE = readFileSync(path.join(root, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

/**
 * axe-core's serious and critical violations on the page as it is now (WCAG 2 A and AA rules).
 * Evaluated through the DevTools protocol, so the console's CSP (no inline script) is untouched.
 */
export const axeViolations = async (page: Page) => {
  await page.evaluate(AXE);
  const found = (await page.evaluate(
    `axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } })
       .then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) })))`,
  )) as { id: string; impact: string; help: string; nodes: string[] }[];
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
};

/**
 * Writes `n` audit entries for a tenant straight into the audit projection's tables, as the
 * projection stores them: each line the canonical JSON hashed as its leaf, every complete
 * subtree once. Fast (a few statements), and the proofs the service serves come from it.
 */
export const seedAuditLog = async (svc: TestService, tenant: string, n: number, startMs: number) => {
  const rows: { seq: number; at: number; kind: string; job: string | null; subject: string | null; record_refs: string[]; line: string }[] = [];
  const levels: Buffer[][] = [[]];
  for (let seq = 0; seq < n; seq++) {
    const at = startMs + seq * 60_000;
    const job = `job-${Math.floor(seq / 10)}`;
    const key = `r${seq % 97}`;
    const version = 1 + (seq % 5);
    const kind = seq % 3 === 0 ? 'write' : 'read';
    const fields =
      kind === 'write'
        ? {
            kind,
            job,
            agent: 'scribe',
            purpose: 'routine:crm',
            plugin: 'notes',
            records: [{ scope: 'tenant', key, version }],
            subject: 'user:ada',
            state: 'active',
            closed: false,
          }
        : {
            kind,
            job,
            agent: 'scribe',
            purpose: 'routine:crm',
            plugin: 'notes',
            records: [{ scope: 'tenant', key, version }],
            subject: 'user:ada',
            op: 'get',
            withheld: [],
          };
    const line = canonicalJson({ seq, at, ...fields });
    rows.push({ seq, at, kind, job, subject: 'user:ada', record_refs: [`tenant#${key}`, `tenant#${key}#${version}`], line });
    levels[0]!.push(leafHash(Buffer.from(line)));
  }
  for (let l = 0; levels[l]!.length > 1; l++) {
    const next: Buffer[] = [];
    for (let i = 0; i + 1 < levels[l]!.length; i += 2) next.push(nodeHash(levels[l]![i]!, levels[l]![i + 1]!));
    levels.push(next);
  }
  const nodes = levels.flatMap((hashes, level) => hashes.map((h, idx) => ({ level, idx, hash: h.toString('hex') })));
  await svc.pool.query(
    `INSERT INTO custodian_audit_lines (tenant, seq, at, kind, job, subject, epoch, record_refs, line)
     SELECT $1, seq, at, kind, job, subject, NULL, record_refs, line FROM jsonb_to_recordset($2::jsonb)
       AS x(seq bigint, at bigint, kind text, job text, subject text, record_refs text[], line text)`,
    [tenant, JSON.stringify(rows)],
  );
  await svc.pool.query(
    `INSERT INTO rm_audit_nodes (tenant, level, idx, hash)
     SELECT $1, l, i, decode(h, 'hex') FROM unnest($2::int[], $3::bigint[], $4::text[]) AS n(l, i, h)`,
    [tenant, nodes.map((x) => x.level), nodes.map((x) => x.idx), nodes.map((x) => x.hash)],
  );
  await svc.pool.query('INSERT INTO rm_audit_heads (tenant, size) VALUES ($1, $2) ON CONFLICT (tenant) DO UPDATE SET size = EXCLUDED.size', [tenant, n]);
};
