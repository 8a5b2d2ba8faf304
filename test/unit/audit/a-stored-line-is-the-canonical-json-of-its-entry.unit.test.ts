import { describe, expect, it } from 'vitest';
import { memoryEventStore } from '../../../adapters/eventstore/memory.ts';
import { auditLines, lineTemplate, lineText } from '../../../domain/audit/lines.ts';
import type { AuditFields } from '../../../domain/audit/entries.ts';
import type { DomainEvent } from '../../../domain/events/registry.ts';
import { canonicalJson } from '../../../domain/shared/hash.ts';

const entries: AuditFields[] = [
  { kind: 'tenant_removed' },
  { kind: 'job_started', job: 'j', agent: 'scribe', purpose: 'p', subject: 's', plugin: 'notes', run: 1, parent: undefined, data_subject: null },
  { kind: 'read', job: 'j', agent: 'a', records: [{ scope: 's', key: 'k', version: 3 }], withheld: 0, aa: 1, b: 'x"y', sz: [1], z: { seq: 9, at: 1 } },
  { kind: 'agent_write', agent: 'ağent', collection: 'c', id: '\u2028', version: 2 },
];

describe('a stored audit line is exactly the canonical JSON hashed as its leaf', () => {
  it.each(entries)('given an entry (%o), when its template is given a time and a place, then the text is canonicalJson({seq, at, ...fields})', (fields) => {
    for (const [at, seq] of [
      [0, 0],
      [1_700_000_000_123, 12_345],
    ] as const)
      expect(lineText(lineTemplate(fields), at, seq)).toBe(canonicalJson({ seq, at, ...fields }));
  });

  it('given a unit that writes a version then removes it, then the removal names the version the write left', () => {
    const events = [
      { type: 'RecordVersionWritten', data: { tenant: 't', plugin: 'p', scope: 's', key: 'k', version: 4, writer: { job: 'j', run: 1 }, purpose: 'x' } },
      { type: 'RecordRemoved', data: { tenant: 't', plugin: 'p', scope: 's', key: 'k', reason: 'erasure', removed_ms: 1 } },
    ] as unknown as DomainEvent[];
    const lines = auditLines(events, { job: () => null, newest: () => 2 });
    expect(lines.map((l) => JSON.parse(lineText(l, 5, 0)))).toMatchObject([
      { kind: 'write', records: [{ version: 4 }] },
      { kind: 'record_removed', records: [{ version: 4 }], versions_removed: 4 },
    ]);
  });

  it('given the memory store, when units with lines commit, then each tenant gets contiguous places and a refused unit takes none', async () => {
    const store = memoryEventStore();
    const ev = (id: string) => ({
      event_id: id,
      type: 'TenantRemoved',
      schema_version: 1,
      data: { tenant: 't' },
      metadata: { tenant: 't', causation_id: null, correlation_id: null },
    });
    const audit = [
      { event: 0, tenant: 't', kind: 'tenant_removed', job: null, subject: null, epoch: null, record_refs: [], ...lineTemplate({ kind: 'tenant_removed' }) },
    ];
    await store.append('a', [ev('00000000-0000-4000-8000-000000000001')], 'no_stream', { audit });
    await store.append('a', [ev('00000000-0000-4000-8000-000000000002')], 'no_stream', { audit });
    await store.append('b', [ev('00000000-0000-4000-8000-000000000003')], 'no_stream', { audit });
    const lines = await store.readAuditLines!('t', 0);
    expect(lines.map((l) => l.seq)).toEqual([0, 1]);
    expect(lines.map((l) => l.line)).toEqual(lines.map((l) => canonicalJson({ seq: l.seq, at: l.at, kind: 'tenant_removed' })));
  });
});
