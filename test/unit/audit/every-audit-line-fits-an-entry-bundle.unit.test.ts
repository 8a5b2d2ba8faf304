import { describe, expect, it } from 'vitest';
import { auditLines, lineText } from '../../../domain/audit/lines.ts';
import { entriesOf, bundleOf, MAX_BUNDLED_ENTRY } from '../../../domain/audit/tiles.ts';
import type { DomainEvent } from '../../../domain/events/registry.ts';
import { canonicalJson } from '../../../domain/shared/hash.ts';

/** The widest place and time a line can be given (16 digits each). */
const AT = 8_640_000_000_000_000;
const SEQ = 9_007_199_254_740_991;
const key = (i: number) => `${'k'.repeat(190)}${String(i).padStart(10, '0')}`;
const read = (n: number, op: 'history' | 'list' = 'history') =>
  ({
    type: 'RecordsRead',
    data: {
      tenant: 't',
      job: 'j',
      run: 1,
      call: 'c',
      step: 1,
      op,
      startup: false,
      plugin: 'notes',
      purpose: 'p'.repeat(256),
      records: Array.from({ length: n }, (_, i) => ({ scope: 'project:ä\u2028"x', key: op === 'history' ? key(0) : key(i), version: n - i })),
      withheld: 0,
      read_ms: 1,
    },
  }) as unknown as DomainEvent;
const facts = { job: () => ({ agent: 'a', purpose: 'p', subject: 's' }), newest: () => null };

describe('every audit line fits an entry bundle (a uint16 length): an entry too long is logged in parts, nothing dropped', () => {
  it('given a history of 1,000 versions of a 200-character key (about 240 kB as one line), then each line is at most 65,535 bytes, the parts name every version once in order, and a bundle of them reads back', () => {
    const lines = auditLines([read(1000)], facts);
    expect(lines.length).toBeGreaterThan(3);
    const texts = lines.map((l, i) => lineText(l, AT, SEQ - lines.length + i));
    for (const text of texts) expect(Buffer.byteLength(text)).toBeLessThanOrEqual(MAX_BUNDLED_ENTRY);
    const parsed = texts.map((t) => JSON.parse(t) as { part: number; parts: number; records: { version: number }[]; kind: string; purpose: string });
    expect(parsed.map((p) => p.part)).toEqual(lines.map((_, i) => i + 1));
    expect(new Set(parsed.map((p) => p.parts))).toEqual(new Set([lines.length]));
    expect(parsed.flatMap((p) => p.records.map((r) => r.version))).toEqual(Array.from({ length: 1000 }, (_, i) => 1000 - i));
    for (const p of parsed) expect(p).toMatchObject({ kind: 'read', purpose: 'p'.repeat(256), job: 'j', agent: 'a' });
    // Each part is the canonical JSON hashed as its leaf, and each names only its own records.
    texts.forEach((text, i) => {
      expect(text).toBe(canonicalJson(JSON.parse(text)));
      expect(lines[i]!.record_refs).toHaveLength(2 * parsed[i]!.records.length);
    });
    expect(entriesOf(bundleOf(texts.map((t) => Buffer.from(t))))!.map(String)).toEqual(texts);
  });

  it('given a read that fits, then it is one line with no part fields (lines that fit are logged as before)', () => {
    const lines = auditLines([read(200, 'list')], facts);
    expect(lines).toHaveLength(1);
    const text = lineText(lines[0]!, AT, SEQ);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(MAX_BUNDLED_ENTRY);
    expect(JSON.parse(text)).not.toHaveProperty('part');
  });

  it("given an agent's export of 5,000 records, then its agent_records are split the same way", () => {
    const event = {
      type: 'AgentRecordsRead',
      data: {
        tenant: 't',
        agent: 'seller-bot',
        op: 'export',
        collection: null,
        records: Array.from({ length: 5000 }, (_, i) => ({ collection: 'c'.repeat(40), id: `id-${i}` })),
      },
    } as unknown as DomainEvent;
    const lines = auditLines([event], facts);
    expect(lines.length).toBeGreaterThan(1);
    const parsed = lines.map((l) => JSON.parse(lineText(l, AT, SEQ)) as { agent_records: { id: string }[] });
    for (const l of lines) expect(Buffer.byteLength(lineText(l, AT, SEQ))).toBeLessThanOrEqual(MAX_BUNDLED_ENTRY);
    expect(parsed.flatMap((p) => p.agent_records.map((r) => r.id))).toEqual(Array.from({ length: 5000 }, (_, i) => `id-${i}`));
  });
});
