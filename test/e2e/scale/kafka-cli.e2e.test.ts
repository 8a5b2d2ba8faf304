import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const bin = path.resolve(import.meta.dirname, '../../../bin/custodian.js');

/** Refusals of the scale-out commands: one line on stderr, exit code 2, nothing started. */
const refused = async (args: string[], env: Record<string, string>) => {
  try {
    await run(process.execPath, [bin, ...args], { env: { ...process.env, KAFKA_BROKERS: '', ...env }, timeout: 60_000 });
  } catch (error) {
    const e = error as { code: number; stderr: string };
    return { code: e.code, stderr: e.stderr };
  }
  throw new Error('the command was not refused');
};

describe('custodian kafka (refusals)', () => {
  it('refuses to run without KAFKA_BROKERS', async () => {
    expect(await refused(['kafka', 'consume', '--group', 'g'], {})).toEqual({
      code: 2,
      stderr: 'custodian: KAFKA_BROKERS is not set (e.g. KAFKA_BROKERS=127.0.0.1:9092)\n',
    });
    expect((await refused(['kafka', 'relay'], {})).code).toBe(2);
  });

  it('refuses a partition count that is not a positive integer', async () => {
    expect(await refused(['kafka', 'relay'], { KAFKA_BROKERS: '127.0.0.1:1', KAFKA_PARTITIONS: 'many' })).toEqual({
      code: 2,
      stderr: 'custodian: KAFKA_PARTITIONS must be a positive integer, not many\n',
    });
  });

  it('refuses models a consumer group cannot build, naming them and what it can build', async () => {
    const r = await refused(['kafka', 'consume', '--group', 'g', '--projections', 'records,audit,dedupe-digests'], { KAFKA_BROKERS: '127.0.0.1:1' });
    expect(r).toEqual({
      code: 2,
      stderr: 'custodian: a consumer group cannot build audit, dedupe-digests; it can build tenants, jobs, calls, records, revocations, retention\n',
    });
  });
});
