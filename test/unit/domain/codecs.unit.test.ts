import fc from 'fast-check';
import * as t from 'io-ts';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { eventRegistry, type DomainEvent } from '../../../domain/events/registry.ts';
import { defineEvent, makeRegistry } from '../../../domain/events/schema.ts';

const text = fc.string({ maxLength: 20 });
const ms = fc.integer({ min: 0, max: 2 ** 45 });
const strings = fc.array(text, { maxLength: 4 });

const jobStarted = fc
  .record({
    tenant: text,
    job: text,
    run: fc.integer({ min: 1, max: 9 }),
    agent: text,
    plugin: text,
    install_gen: fc.integer({ min: 1, max: 9 }),
    purpose: text,
    subject: text,
    data_subject: fc.option(text, { nil: null }),
    labels: strings,
    scopes: strings,
    startup_function: fc.option(text, { nil: null }),
    budget_usd: fc.option(fc.double({ min: 0, max: 1e6, noNaN: true }), { nil: null }),
    max_depth: fc.option(fc.integer({ min: 0, max: 32 }), { nil: null }),
    expires_ms: fc.option(ms, { nil: null }),
    constraints: fc.jsonValue(),
    parent: fc.option(text, { nil: null }),
    start_digest: text,
    started_ms: ms,
  })
  .map((data): DomainEvent => ({ type: 'JobStarted', data }));

const callMinted = fc
  .record({
    tenant: text,
    job: text,
    run: fc.nat(9),
    call: text,
    step: fc.nat(99),
    function: text,
    ticket_hash: text,
    idempotency_key: text,
    startup: fc.boolean(),
    minted_ms: ms,
  })
  .map((data): DomainEvent => ({ type: 'CallMinted', data }));

const pluginInstalled = fc
  .record({
    tenant: text,
    name: text,
    install_gen: fc.nat(9),
    scopes: fc.subarray(['agent', 'project', 'tenant'] as ('agent' | 'project' | 'tenant')[]),
    functions: strings,
    agents: strings,
    startup: fc.option(text, { nil: null }),
    installed_ms: ms,
  })
  .chain((data) => fc.option(text, { nil: undefined }).map((request_id) => (request_id === undefined ? data : { ...data, request_id })))
  .map((data): DomainEvent => ({ type: 'PluginInstalled', data }));

describe('event codecs', () => {
  it('decodes the v1 shapes written before ceilings could be none and request ids existed (SPEC §6 corrections)', () => {
    const block = {
      job: 'j',
      subject: 'user:ada',
      agent: 'a',
      agent_version: '1',
      plugin: 'p',
      install_gen: 2,
      purpose: '',
      scopes: ['plugin:p'],
      budget_usd: null,
      max_depth: 4,
      depth: 0,
      expires_ms: 86_400_000,
      policy_version: 1,
      epoch: 1,
      level: 'L2',
      granted_by: 'tenant:t',
      level_policy_version: 1,
      labels: [],
      constraints_digest: 'd',
    };
    const v1: [string, unknown][] = [
      ['EnvelopeBlockAppended', { tenant: 't', job: 'j', run: 1, index: 0, signed: { block, mac: 'm' } }],
      ['PluginInstalled', { tenant: 't', name: 'p', install_gen: 3, scopes: ['tenant'], functions: [], agents: [], startup: null, installed_ms: 1 }],
      [
        'RevocationBatchApplied',
        {
          tenant: 't',
          epoch: 2,
          items: [{ kind: 'kill_agent', agent: 'p/a' }],
          revocations: [{ kind: 'kill_agent', agent: 'p/a' }],
          grants: {},
          people: {},
          removed_plugins: [],
          applied_ms: 1,
        },
      ],
      ['TenantSettingsChanged', { tenant: 't', changes: { retention_days: 3 }, changed_ms: 1 }],
    ];
    for (const [type, data] of v1) expect(eventRegistry.decode(type, 1, data)).toEqual(E.right({ type, data }));
  });

  it('every event survives encode → JSON → decode unchanged', () => {
    fc.assert(
      fc.property(fc.oneof(jobStarted, callMinted, pluginInstalled), (event) => {
        const encoded = eventRegistry.encode(event);
        const stored = JSON.parse(JSON.stringify(encoded.data));
        const decoded = eventRegistry.decode(encoded.type, encoded.schema_version, stored);
        // JSON has no -0; compare as JSON would keep it.
        expect(decoded).toEqual(E.right(JSON.parse(JSON.stringify(event))));
      }),
    );
  });

  it('refuses data that does not match the released shape, and unknown types', () => {
    expect(E.isLeft(eventRegistry.decode('JobEnded', 1, { tenant: 'a', job: 'b', run: 'one', ended_ms: 1 }))).toBe(true);
    expect(E.isLeft(eventRegistry.decode('NoSuchEvent', 1, {}))).toBe(true);
    expect(E.isLeft(eventRegistry.decode('JobEnded', 99, {}))).toBe(true);
  });

  it('lifts an old schema version through its upcasters', () => {
    const v3 = defineEvent('Renamed', 3, t.type({ full_name: t.string, tags: t.array(t.string) }), {
      1: (d) => ({ full_name: (d as { name: string }).name }),
      2: (d) => ({ ...(d as object), tags: [] }),
    });
    const registry = makeRegistry<{ type: 'Renamed'; data: { full_name: string; tags: string[] } }>([v3]);
    expect(registry.decode('Renamed', 1, { name: 'Ada' })).toEqual(E.right({ type: 'Renamed', data: { full_name: 'Ada', tags: [] } }));
    expect(registry.decode('Renamed', 3, { full_name: 'Bo', tags: ['x'] })).toEqual(E.right({ type: 'Renamed', data: { full_name: 'Bo', tags: ['x'] } }));
    expect(registry.encode({ type: 'Renamed', data: { full_name: 'C', tags: [] } }).schema_version).toBe(3);
  });
});
