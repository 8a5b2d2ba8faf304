import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AUDIT_KINDS } from '../../../domain/audit/kinds.ts';
import { REFUSAL_CODES } from '../../../domain/shared/refusal.ts';
import { MESSAGES, withMessage } from '../../../adapters/http/refusal-messages.ts';
import { parseTime } from '../../../adapters/http/time-param.ts';

describe('every refusal code has a message that says what to change', () => {
  it.each(REFUSAL_CODES)('%s', (code) => {
    const bare = MESSAGES[code]({ error: code });
    const full = MESSAGES[code]({
      error: code,
      field: 'f',
      reason: 'send the key as Authorization: Bearer <key>',
      limit: 3,
      current: 2,
      what: 'job',
      cap: 'records',
    });
    for (const m of [bare, full]) {
      expect(m.length).toBeGreaterThan(20);
      // One sentence a user can act on: it names no spec, issue or seed.
      expect(m).not.toMatch(/SPEC|§|seed|issue/i);
      expect(m).toMatch(/:|,/);
    }
  });

  it('keeps a message a refusal already carries, and prefixes records: on the agent API', () => {
    expect(withMessage({ error: 'invalid', message: 'records: x: y' }, true).message).toBe('records: x: y');
    expect(withMessage({ error: 'invalid', field: 'limit', reason: 'too big' }, true).message).toBe('records: limit: too big');
    expect(withMessage({ error: 'stale', current: 4 })).toEqual({ error: 'stale', current: 4, message: expect.stringContaining('send expect 4') });
  });
});

describe('audit filter kinds', () => {
  it('lists every kind an audit entry is written with', () => {
    const source = readFileSync(new URL('../../../domain/audit/entries.ts', import.meta.url), 'utf8');
    const written = [...source.matchAll(/kind: (?:[^'\n]*\? )?'([a-z_]+)'(?: : '([a-z_]+)')?/g)].flatMap((m) => [m[1], m[2]]).filter((k): k is string => !!k);
    expect(written.length).toBeGreaterThan(15);
    expect(written.filter((k) => !(AUDIT_KINDS as readonly string[]).includes(k))).toEqual([]);
  });
});

describe('times in query strings', () => {
  it('reads milliseconds and ISO 8601 (UTC unless an offset is given), and nothing else', () => {
    expect(parseTime('1764547200000')).toBe(1764547200000);
    expect(parseTime('2026-12-01')).toBe(Date.UTC(2026, 11, 1));
    expect(parseTime('2026-12-01T10:00')).toBe(Date.UTC(2026, 11, 1, 10));
    expect(parseTime('2026-12-01T10:00:00+02:00')).toBe(Date.UTC(2026, 11, 1, 8));
    for (const bad of ['', 'yesterday', '2026-13-45', '12abc', '-5', '1e3', ' 1', '2026-12-01 10:00']) expect(parseTime(bad), bad).toBeNull();
  });
});
