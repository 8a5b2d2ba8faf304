import { createHmac, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { memoryEventStore } from '../../../adapters/eventstore/memory.ts';
import { chainVerifies, constraintsDigest, macInput, type Block, type Chain } from '../../../domain/envelopes/block.ts';
import type { EventStore } from '../../../domain/ports/event-store.ts';
import { ticketHash } from '../../../domain/shared/hash.ts';
import { jobStream } from '../../../domain/shared/names.ts';
import type { CallContext } from '../../../queries/call-context.ts';
import { logFence } from '../../../queries/fence.ts';

/**
 * The fence on a store whose events never change once written (memory, EventStoreDB): what
 * the log says decides, the read model's copy only finds the call, and a stream that has not
 * grown is not verified again.
 */
const NOW = 1_000_000;
const mac = (input: string) => createHmac('sha256', 'tenant-key').update(input).digest('hex');

const block = (over: Partial<Block> = {}): Block => ({
  job: 'j',
  subject: 's',
  agent: 'scribe',
  agent_version: '1',
  plugin: 'notes',
  install_gen: 1,
  purpose: 'routine:daily',
  scopes: ['plugin:notes'],
  budget_usd: null,
  max_depth: 0,
  depth: 0,
  expires_ms: NOW + 60_000,
  policy_version: 1,
  epoch: 1,
  level: 'L2',
  granted_by: 'admin',
  level_policy_version: 1,
  labels: [],
  constraints_digest: constraintsDigest([]),
  ...over,
});
const signed = (b: Block, previous = '') => ({ block: b, mac: mac(macInput(b, previous)) });

const event = (type: string, data: unknown) => ({
  event_id: randomUUID(),
  type,
  schema_version: 1,
  data,
  metadata: { tenant: 'acme', causation_id: null, correlation_id: null },
});
const started = (over: Record<string, unknown> = {}) =>
  event('JobStarted', {
    tenant: 'acme',
    job: 'j',
    run: 1,
    agent: 'scribe',
    plugin: 'notes',
    install_gen: 1,
    purpose: 'routine:daily',
    subject: 's',
    data_subject: null,
    labels: ['red'],
    scopes: ['plugin:notes'],
    startup_function: null,
    budget_usd: null,
    max_depth: 0,
    expires_ms: NOW + 60_000,
    constraints: [],
    parent: null,
    start_digest: 'd',
    started_ms: NOW,
    ...over,
  });
const appended = (s: { block: Block; mac: string }, index = 0) => event('EnvelopeBlockAppended', { tenant: 'acme', job: 'j', run: 1, index, signed: s });
const minted = (call: string, ticket: string, step = 1) =>
  event('CallMinted', {
    tenant: 'acme',
    job: 'j',
    run: 1,
    call,
    step,
    function: 'save',
    ticket_hash: ticketHash(ticket),
    idempotency_key: `idem-${step}`,
    startup: false,
    minted_ms: NOW,
  });

/** What the read model answers for the ticket: possibly edited, so the fence trusts none of it but the pointer to the call. */
const found = (chain: Chain, over: Partial<CallContext> = {}): CallContext => ({
  tenant: 'acme',
  settings: {} as CallContext['settings'],
  job: 'j',
  run: 1,
  call: 'c1',
  step: 1,
  idempotency_key: 'idem-1',
  startup: false,
  agent: 'scribe',
  agent_plugin: 'notes',
  plugin: 'notes',
  plugin_scopes: [],
  purpose: 'routine:daily',
  data_subject: null,
  labels: [],
  expires_ms: Number.MAX_SAFE_INTEGER,
  status: 'running',
  chain,
  revocations: [],
  ...over,
});

const given = async (events: ReturnType<typeof event>[], now = NOW) => {
  const store: EventStore = memoryEventStore();
  await store.append(jobStream('acme', 'j'), events, 'any');
  const fence = logFence({ store, chainVerifies: (_t, chain) => chainVerifies(chain, mac), now: () => now });
  return { store, fence };
};

const root = signed(block());

describe('the fence on an immutable log', () => {
  it("given a running job and its minted call, when the ticket comes, then the log's context is answered, labels and all", async () => {
    const { fence } = await given([started(), appended(root), minted('c1', 't1')]);
    const ctx = await fence.admit(found([root], { labels: [], status: 'stopped' }), 't1');
    expect(ctx).toMatchObject({ status: 'running', labels: ['red'], step: 1, idempotency_key: 'idem-1', chain: [root] });
  });

  it('given the call, when another ticket names it, then it is refused', async () => {
    const { fence } = await given([started(), appended(root), minted('c1', 't1')]);
    expect(await fence.admit(found([root]), 't2')).toBeNull();
  });

  it('given a block whose MAC does not hold, then every call of the job is refused', async () => {
    const forged = { block: block({ budget_usd: 1000 }), mac: root.mac };
    const { fence } = await given([started(), appended(forged), minted('c1', 't1')]);
    expect(await fence.admit(found([forged]), 't1')).toBeNull();
  });

  it('given a read model whose chain differs from the verified log, then it is refused', async () => {
    const { fence } = await given([started(), appended(root), minted('c1', 't1')]);
    expect(await fence.admit(found([signed(block({ scopes: ['plugin:notes', 'plugin:other'] }))]), 't1')).toBeNull();
  });

  it('given an event the log cannot decode, then the job is refused rather than guessed at', async () => {
    const { fence } = await given([started(), appended(root), minted('c1', 't1'), event('LabelsJoined', { tenant: 'acme', job: 'j' })]);
    expect(await fence.admit(found([root]), 't1')).toBeNull();
  });

  it('given a job past the expiry its head block carries, then it is refused', async () => {
    const { fence } = await given([started(), appended(root), minted('c1', 't1')], NOW + 60_000);
    expect(await fence.admit(found([root]), 't1')).toBeNull();
  });

  it('when the call ends or the job stops after it was admitted, then the next request is refused', async () => {
    const { store, fence } = await given([started(), appended(root), minted('c1', 't1'), minted('c2', 't2', 2)]);
    expect(await fence.admit(found([root]), 't1')).not.toBeNull();
    await store.append(jobStream('acme', 'j'), [event('CallEnded', { tenant: 'acme', job: 'j', call: 'c1', reason: 'ended', ended_ms: NOW })], 'any');
    expect(await fence.admit(found([root]), 't1')).toBeNull();
    expect(await fence.admit(found([root], { call: 'c2' }), 't2')).not.toBeNull();
    await store.append(
      jobStream('acme', 'j'),
      [event('JobStopped', { tenant: 'acme', job: 'j', run: 1, epoch: 2, reasons: ['kill_agent'], stopped_ms: NOW })],
      'any',
    );
    expect(await fence.admit(found([root], { call: 'c2' }), 't2')).toBeNull();
  });

  it('verifies the chain once while it holds still, however many requests and appends come', async () => {
    const { store, fence } = await given([started(), appended(root), minted('c1', 't1')]);
    for (let i = 0; i < 10; i++) expect(await fence.admit(found([root]), 't1')).not.toBeNull();
    await store.append(jobStream('acme', 'j'), [minted('c2', 't2', 2)], 'any');
    expect(await fence.admit(found([root], { call: 'c2' }), 't2')).not.toBeNull();
    expect(fence.verifications()).toBe(1);
  });
});
