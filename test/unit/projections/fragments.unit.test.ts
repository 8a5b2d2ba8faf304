import { describe, expect, it } from 'vitest';
import { fused } from '../../../projections/fragments.ts';

describe('fragments fused into one statement', () => {
  it('makes each fragment a CTE and numbers its parameters on from the ones before it', () => {
    const { text, params } = fused([
      { text: 'DELETE FROM a WHERE x = ANY($1::text[]) AND y = $2', params: [['p'], 'q'] },
      { text: 'INSERT INTO b SELECT * FROM unnest($1::int[], $2::text[], $1::int[])', params: [[1], ['r']] },
      { text: 'DELETE FROM c WHERE z = $1', params: ['s'] },
    ]);
    expect(text).toBe(
      'WITH f0 AS (DELETE FROM a WHERE x = ANY($1::text[]) AND y = $2),\n' +
        '  f1 AS (INSERT INTO b SELECT * FROM unnest($3::int[], $4::text[], $3::int[])),\n' +
        '  f2 AS (DELETE FROM c WHERE z = $5)\nSELECT 1',
    );
    expect(params).toEqual([['p'], 'q', [1], ['r'], 's']);
  });

  it('refuses a fragment that names a parameter it does not carry', () => {
    expect(() => fused([{ text: 'DELETE FROM a WHERE x = $2', params: ['only one'] }])).toThrow(/\$2/);
  });
});
