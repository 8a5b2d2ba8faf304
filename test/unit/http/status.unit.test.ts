import { describe, expect, it } from 'vitest';
import { STATUS, statusOf } from '../../../adapters/http/status.ts';
import { REFUSAL_CODES, refusal, type Refusal, type RefusalCode } from '../../../domain/shared/refusal.ts';

describe('refusal codes and their HTTP statuses', () => {
  it('every code of the union has a status, and the table names no other code', () => {
    expect(Object.keys(STATUS).sort()).toEqual([...REFUSAL_CODES].sort());
  });

  it('every refusal is a 4xx, but the edge fault (500), read models that did not catch up in time and a tenant being moved (503, retry)', () => {
    for (const code of REFUSAL_CODES) {
      const status = statusOf(refusal(code));
      if (code === 'internal') expect(status).toBe(500);
      else if (code === 'unavailable' || code === 'moving') expect(status).toBe(503);
      else {
        expect(status, code).toBeGreaterThanOrEqual(400);
        expect(status, code).toBeLessThan(500);
      }
    }
  });

  it('an unknown code is a fault of ours, never a silent 400', () => {
    expect(() => statusOf({ error: 'no_such_code' } as unknown as Refusal)).toThrow(/no_such_code/);
    expect(() => statusOf({ error: 'toString' } as unknown as Refusal)).toThrow(/toString/);
  });

  it('the union is closed: a code outside it does not type-check', () => {
    // @ts-expect-error 'teapot' is no refusal code
    const teapot: RefusalCode = 'teapot';
    // @ts-expect-error refusal() takes only codes of the union
    expect(() => statusOf(refusal('teapot'))).toThrow();
    expect(teapot).toBe('teapot');
  });
});
