import { spawnSync } from 'node:child_process';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { logFormatOf } from '../../adapters/logging.ts';

const REPO = path.resolve(import.meta.dirname, '../..');

/** A child whose stdout is a pipe (never a TTY) logging one line through the process logger. */
const logOnce = (env: Record<string, string>) =>
  spawnSync(process.execPath, ['--import', 'tsx', '-e', "import('./adapters/logging.ts').then((m) => m.processLogger().info({ answer: 42 }, 'hello'))"], {
    cwd: REPO,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    encoding: 'utf8',
  });

describe('the log format', () => {
  it('is pretty at a terminal and JSON anywhere else, unless CUSTODIAN_LOG_FORMAT says', () => {
    expect(logFormatOf(true, undefined)).toBe('pretty');
    expect(logFormatOf(false, undefined)).toBe('json');
    expect(logFormatOf(undefined, undefined)).toBe('json');
    expect(logFormatOf(true, '')).toBe('pretty');
    expect(logFormatOf(true, 'json')).toBe('json');
    expect(logFormatOf(false, 'pretty')).toBe('pretty');
  });

  it('refuses any other override instead of guessing', () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !['', 'json', 'pretty'].includes(s)),
        fc.option(fc.boolean(), { nil: undefined }),
        (value, isTTY) => {
          expect(() => logFormatOf(isTTY, value)).toThrow(/CUSTODIAN_LOG_FORMAT must be json or pretty/);
        },
      ),
    );
  });

  it('a child writing to a pipe logs JSON lines', () => {
    const child = logOnce({ CUSTODIAN_LOG_FORMAT: '' });
    expect(child.status).toBe(0);
    const lines = child.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 30, msg: 'hello', answer: 42 });
  });

  it('the same child with CUSTODIAN_LOG_FORMAT=pretty logs a readable line, not JSON', () => {
    const child = logOnce({ CUSTODIAN_LOG_FORMAT: 'pretty' });
    expect(child.status).toBe(0);
    const out = child.stdout.trim();
    expect(out).toMatch(/INFO.*hello/);
    expect(out).toContain('answer: 42');
    expect(() => JSON.parse(out)).toThrow();
  });
});

describe('custodian start with a bad CUSTODIAN_LOG_FORMAT', () => {
  it('says what to fix in one line and exits 2, before touching a database', () => {
    const child = spawnSync(process.execPath, ['bin/custodian.js', 'start'], {
      cwd: REPO,
      env: { ...process.env, CUSTODIAN_LOG_FORMAT: 'yaml', CUSTODIAN_DATA_DIR: '/nonexistent/custodian-never-created' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(child.status).toBe(2);
    expect(child.stderr.trim()).toBe('custodian: CUSTODIAN_LOG_FORMAT must be json or pretty, not "yaml"');
    expect(child.stdout).toBe('');
  });
});
