import { randomBytes } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../adapters/clock/system.ts';
import { memoryEventStore } from '../../../adapters/eventstore/memory.ts';
import { envelopeMacs } from '../../../adapters/keys/envelope-keys.ts';
import { joinFileLabels } from '../../../commands/file-labels.ts';
import { jobCommands } from '../../../commands/jobs.ts';
import { resultCommands } from '../../../commands/results.ts';
import type { FileCommands } from '../../../commands/files.ts';
import { tenantCommands } from '../../../commands/tenants.ts';
import type { EventStore } from '../../../domain/ports/event-store.ts';
import { defaultSettings } from '../../../domain/tenants/settings.ts';
import type { CallContext } from '../../../queries/call-context.ts';

const ok = <T>(e: E.Either<unknown, T>): T => {
  if (E.isLeft(e)) throw new Error(JSON.stringify(e.left));
  return e.right;
};

/** A store that notes the revision each read of a stream starts from. */
const watched = () => {
  const inner = memoryEventStore();
  const reads: { stream: string; from: number }[] = [];
  const store: EventStore = { ...inner, readStream: (stream, from) => (reads.push({ stream, from: from ?? 0 }), inner.readStream(stream, from)) };
  return { store, reads };
};

const setUp = async () => {
  const { store, reads } = watched();
  ok(await tenantCommands(store, systemClock).create('acme', {}));
  ok(await tenantCommands(store, systemClock).installPlugin('acme', { name: 'notes', functions: ['save'], agents: ['scribe'] }));
  const jobs = jobCommands(store, systemClock, envelopeMacs(randomBytes(32)));
  ok(await jobs.start('acme', 'j1', { agent: 'scribe', plugin: 'notes', subject: 's', input: 'x' }));
  for (let i = 0; i < 5; i++) ok(await jobs.mintCall('acme', 'j1', 'save', {}));
  const ctx = { tenant: 'acme', job: 'j1', run: 1, call: 'c', labels: [], settings: defaultSettings() } as unknown as CallContext;
  return { store, reads, jobs, ctx, fromJob: () => reads.filter((r) => r.stream === 'job:acme:j1').map((r) => r.from) };
};

describe("a job's state read by a file read and a result", () => {
  it("given a job the job commands folded, when a file read joins labels, then only what the job's stream gained is read", async () => {
    const { store, jobs, ctx, fromJob } = await setUp();
    const before = fromJob().length;
    const loader = (tenant: string, job: string) => jobs.folded(tenant, job);
    const joined = ok(await joinFileLabels(store, ctx, ['green'], 1, loader));
    expect(joined).not.toBeNull();
    expect(
      fromJob()
        .slice(before)
        .every((from) => from > 0),
    ).toBe(true);
    // The join is in the state read next, caught up from the log.
    const after = await jobs.folded('acme', 'j1');
    expect(after.state.exists && after.state.start.labels).toEqual(['green']);
    expect(ok(await joinFileLabels(store, ctx, ['green'], 2, loader))).toBeNull();
  });

  it("given a job the job commands folded, when a result is offered, then its threshold is read without the job's whole stream", async () => {
    const { store, jobs, ctx, fromJob } = await setUp();
    const before = fromJob().length;
    const results = resultCommands({} as FileCommands, store, (tenant, job) => jobs.folded(tenant, job));
    expect(ok(await results.offload(ctx, 'save', { text: 'short' }))).toEqual({ inline: true, position: null });
    expect(fromJob().slice(before).length).toBeGreaterThan(0);
    expect(
      fromJob()
        .slice(before)
        .every((from) => from > 0),
    ).toBe(true);
  });
});
