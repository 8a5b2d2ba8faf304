import { describe, expect, it } from 'vitest';
import { mayShowVersion, personRecordGone, type VersionFacts } from '../../../domain/records/reads.ts';

const NOW = 1_000_000;
const v = (over: Partial<VersionFacts> = {}): VersionFacts => ({ state: 'active', closed: false, ends_at: NOW + 1, subject_kind: 'work', ...over });

describe('start-up tickets never see ended, closed or deleted records or versions', () => {
  it('given a live record, a start-up read shows its live versions only', () => {
    const newest = v();
    expect(mayShowVersion(v(), newest, true, NOW)).toBe(true);
    expect(mayShowVersion(v({ state: 'deleted' }), newest, true, NOW)).toBe(false);
    expect(mayShowVersion(v({ closed: true }), newest, true, NOW)).toBe(false);
    expect(mayShowVersion(v({ ends_at: NOW }), newest, true, NOW)).toBe(false);
  });

  it('given a record whose newest version is not live, a start-up read shows none of it; an ordinary read shows every version', () => {
    for (const newest of [v({ state: 'deleted' }), v({ closed: true }), v({ ends_at: NOW - 5 })]) {
      expect(mayShowVersion(v(), newest, true, NOW)).toBe(false);
      expect(mayShowVersion(v({ state: 'deleted' }), newest, false, NOW)).toBe(true);
    }
  });
});

describe('a person record is deleted at its end', () => {
  it('from that instant no read shows any version of it, start-up or not', () => {
    const ended = v({ subject_kind: 'person', ends_at: NOW });
    expect(personRecordGone(ended, NOW)).toBe(true);
    expect(personRecordGone(ended, NOW - 1)).toBe(false);
    expect(mayShowVersion(v({ subject_kind: 'person' }), ended, false, NOW)).toBe(false);
    expect(personRecordGone(v({ ends_at: NOW }), NOW)).toBe(false);
  });
});
