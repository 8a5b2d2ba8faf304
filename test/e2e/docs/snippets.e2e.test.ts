import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../../support/npm-start.ts';
import { ADMIN_KEY, startTestService } from '../../support/service.ts';
import { blocksOf, documents, firstRecordBlock, READING_ORDER, RUN_TAGS, SHOWN_TAGS, type Block } from '../../support/snippets.ts';

/**
 * Every snippet a user reads is run, so the documents cannot drift from the service. The rule
 * is the block's tag (test/support/snippets.ts): each page's `sh` and `ts` blocks run in order,
 * in one bash in the checkout, after the README's first-record block (as the pages tell a reader
 * to do), against a fresh service; and every guide's blocks run once more one after another, in
 * reading order, in one bash against one service, as a reader who follows them all does. `json`
 * blocks parse; `text` blocks are shown, never run.
 */
const pages = documents();
const all = pages.flatMap((p) => blocksOf(p));
const where = (b: Block) => `${b.file}:${b.line}`;
const SNIPPETS = path.join(REPO, '.tmp', 'snippets');

/** The page as one bash script: its sh blocks verbatim, each ts block run from a file of its own. */
const scriptOf = (page: string, blocks: readonly Block[]) =>
  blocks
    .map((b) => {
      if (b.tag === 'sh') return `# ${where(b)}\n${b.code}`;
      const file = path.join(SNIPPETS, `${page.replace(/[^A-Za-z0-9]+/g, '-')}-${b.line}.ts`);
      writeFileSync(file, b.code);
      return `# ${where(b)}\nnode --conditions=custodian-source --import tsx ${JSON.stringify(file)}\n`;
    })
    .join('\n');

const runnableBlocks = (page: string) => blocksOf(page).filter((b) => b.tag === 'sh' || b.tag === 'ts');
const outputName = (page: string) => page.replace(/[^A-Za-z0-9]+/g, '-');

/** Asynchronous: the service answers from this very process, so it must not be blocked. */
const bash = (script: string, env: NodeJS.ProcessEnv) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn('bash', ['-c', script], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 480_000);
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });

describe('the fenced blocks of README.md and docs/', () => {
  it('each carry a tag that says how a test holds them', () => {
    const known: readonly string[] = [...RUN_TAGS, ...SHOWN_TAGS];
    expect(all.filter((b) => !known.includes(b.tag)).map((b) => `${where(b)} \`\`\`${b.tag}`)).toEqual([]);
    console.log(
      `snippets: ${all.length} blocks in ${pages.length} documents: ${[...known].map((t) => `${t} ${all.filter((b) => b.tag === t).length}`).join(', ')}`,
    );
  });

  it('json blocks parse', () => {
    const bad = all
      .filter((b) => b.tag === 'json')
      .filter((b) => {
        try {
          JSON.parse(b.code);
          return false;
        } catch {
          return true;
        }
      });
    expect(bad.map(where)).toEqual([]);
  });
});

/**
 * The script against a fresh service, in one bash; what it printed is kept for a person to
 * compare with the pages (test-output is not committed). Passes only with exit 0 and no stderr.
 */
const runAgainstFreshService = async (name: string, script: string, blocks: readonly Block[]) => {
  const service = await startTestService({ testClock: true });
  try {
    const run = await bash(`set -euo pipefail\n${script}`, {
      ...process.env,
      PORT: new URL(service.url).port,
      CUSTODIAN_URL: service.url,
      CUSTODIAN_ADMIN_KEY: ADMIN_KEY,
      CUSTODIAN_LOG_FORMAT: 'json',
    });
    mkdirSync(path.join(REPO, 'test-output', 'snippets'), { recursive: true });
    writeFileSync(path.join(REPO, 'test-output', 'snippets', `${name}.out`), `${run.stdout}\n--- stderr\n${run.stderr}`);
    console.log(`snippets: ${name}: ${blocks.filter((b) => b.tag === 'sh').length} sh and ${blocks.filter((b) => b.tag === 'ts').length} ts blocks ran`);
    expect({ status: run.status, stderr: run.status === 0 ? '' : run.stderr.slice(-4000), stdout: run.status === 0 ? '' : run.stdout.slice(-4000) }).toEqual({
      status: 0,
      stderr: '',
      stdout: '',
    });
  } finally {
    await service.stop();
  }
};

describe('the sh and ts blocks of each page, run against a service', () => {
  beforeAll(() => {
    mkdirSync(SNIPPETS, { recursive: true });
  });

  const runnable = pages.filter((p) => p !== 'README.md' && runnableBlocks(p).length > 0);
  it.each(runnable)(
    "%s, after the README's first record",
    async (page) => {
      const blocks = runnableBlocks(page);
      await runAgainstFreshService(outputName(page), `${firstRecordBlock()}\n${scriptOf(page, blocks)}`, blocks);
    },
    300_000,
  );
});

describe('every guide, one after another in reading order, in one shell against one service', () => {
  beforeAll(() => {
    mkdirSync(SNIPPETS, { recursive: true });
  });

  it('puts the README and every guide in the reading order', () => {
    expect([...READING_ORDER].sort()).toEqual(['README.md', ...pages.filter((p) => p.startsWith('docs/guides/'))].sort());
  });

  it(
    READING_ORDER.join(', then '),
    async () => {
      const blocks = READING_ORDER.flatMap((page) => runnableBlocks(page));
      const script = READING_ORDER.map((page) => scriptOf(page, runnableBlocks(page))).join('\n');
      await runAgainstFreshService('reading-order', script, blocks);
    },
    600_000,
  );
});

describe('docs/reference/http.md', () => {
  it('names every route the server registers, as METHOD /path', async () => {
    const service = await startTestService({ testClock: true });
    try {
      const text = readFileSync(path.join(REPO, 'docs/reference/http.md'), 'utf8');
      const routes = service.http.routeTable.filter((r) => r.method !== 'HEAD').map((r) => `${r.method} ${r.url.replace(/:([A-Za-z_]+)/g, '{$1}')}`);
      expect(routes.length).toBeGreaterThan(40);
      expect([...new Set(routes)].filter((r) => !text.includes(`\`${r}\``))).toEqual([]);
    } finally {
      await service.stop();
    }
  });
});
