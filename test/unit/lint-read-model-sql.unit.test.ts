import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

/**
 * scripts/check-read-model-sql.sh, run on a small tree of its own: read-model tables may be
 * named in projections/, queries/, test/ and bench/, nowhere else.
 */
const SCRIPT = join(import.meta.dirname, '../../scripts/check-read-model-sql.sh');
const roots: string[] = [];
afterEach(() => roots.splice(0).forEach((r) => rmSync(r, { recursive: true, force: true })));

const check = (files: Record<string, string>) => {
  const root = mkdtempSync(join(tmpdir(), 'rm-check-'));
  roots.push(root);
  mkdirSync(join(root, 'scripts'));
  cpSync(SCRIPT, join(root, 'scripts/check-read-model-sql.sh'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, dirname(path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const run = spawnSync('bash', [join(root, 'scripts/check-read-model-sql.sh')], { encoding: 'utf8' });
  return { status: run.status, stderr: run.stderr };
};

describe('read-model SQL only in projections and queries', () => {
  it('passes when only projections, queries, tests and benches name rm_ tables', () => {
    expect(
      check({
        'projections/jobs.ts': "q('UPDATE rm_jobs SET x = 1')\n",
        'queries/jobs.ts': "q('SELECT * FROM rm_jobs')\n",
        'test/x.test.ts': "q('SELECT * FROM rm_jobs')\n",
        'bench/x.ts': "q('SELECT * FROM rm_jobs')\n",
        'commands/jobs.ts': "handle('job')\n",
      }).status,
    ).toBe(0);
  });

  it.each([['commands/jobs.ts'], ['adapters/http/routes/audit.ts'], ['adapters/service.ts'], ['domain/x/y.ts']])(
    'fails naming the line when %s names one',
    (path) => {
      const { status, stderr } = check({ [path]: "const sql = 'SELECT id FROM rm_tenants';\n" });
      expect(status).toBe(1);
      expect(stderr).toContain(`./${path}:1:`);
    },
  );
});
