import { execFile } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestService, type TestService } from '../../support/service.ts';

/**
 * The README's ask-the-seller example (examples/ask-the-seller.ts) runs as a script against a
 * started service: here the whole service in this process on a fresh database (what `npm start`
 * runs, without waiting for its embedded server), the script in a process of its own.
 */
const root = path.resolve(import.meta.dirname, '../../..');
let service: TestService;
beforeAll(async () => {
  service = await startTestService();
}, 120_000);
afterAll(async () => service?.stop());

const runExample = () =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(
      process.execPath,
      ['--conditions=custodian-source', '--import', 'tsx', 'examples/ask-the-seller.ts'],
      { cwd: root, env: { ...process.env, CUSTODIAN_URL: service.url, CUSTODIAN_ADMIN_KEY: ADMIN_KEY } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    ),
  );

describe('examples/ask-the-seller.ts', () => {
  it('runs against the service, and runs again', async () => {
    const first = await runExample();
    expect(first.stderr).toBe('');
    expect(first).toMatchObject({ code: 0 });
    expect(first.stdout).toContain("Waiting for Sam: [\n  {\n    id: 'bike-42:turn-1',");
    expect(first.stdout).toContain('Forgotten records of Maria: 1');
    expect(first.stdout.trim().endsWith('ask-the-seller: done')).toBe(true);
    const again = await runExample();
    expect(again).toMatchObject({ code: 0, stderr: '' });
    // What the example did is in the log: the tenant's agent stream holds its puts and the forget.
    const events = await service.store.readStream('agent:shop:market');
    expect(events.map((e) => e.type).filter((t) => t === 'AgentPersonForgotten')).toHaveLength(2);
  });
});
