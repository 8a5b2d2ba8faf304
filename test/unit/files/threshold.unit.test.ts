import { describe, expect, it } from 'vitest';
import { DEFAULT_OFFLOAD_TOKENS, offloadThreshold } from '../../../domain/files/threshold.ts';

describe('offloadThreshold (SPEC §13)', () => {
  it('given nothing set, then 10,000', () => expect(offloadThreshold(undefined, {})).toBe(DEFAULT_OFFLOAD_TOKENS));
  it("given only the tenant's default, then that", () => expect(offloadThreshold(undefined, { offload_tokens: 4000 })).toBe(4000));
  it("given the job's own, then the job's over the tenant's default", () => expect(offloadThreshold(2500, { offload_tokens: 4000 })).toBe(2500));
  it('given a job asking above the ceiling, then the ceiling', () => expect(offloadThreshold(30_000, { offload_ceiling: 12_000 })).toBe(12_000));
  it('given "off" under a ceiling, then the ceiling; without one, off', () => {
    expect(offloadThreshold('off', { offload_ceiling: 12_000 })).toBe(12_000);
    expect(offloadThreshold('off', {})).toBe('off');
  });
  it('given no job setting and a ceiling below the default, then the ceiling', () => expect(offloadThreshold(undefined, { offload_ceiling: 3000 })).toBe(3000));
});
