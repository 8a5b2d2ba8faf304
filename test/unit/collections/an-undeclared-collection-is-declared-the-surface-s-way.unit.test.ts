import { describe, expect, it } from 'vitest';
import { addressedMessage, noCollection } from '../../../domain/collections/refusals.ts';
import { SURFACES, surfaceOf } from '../../../domain/shared/surface.ts';
import { withMessage } from '../../../adapters/http/refusal-messages.ts';

/** How each surface declares a collection: the call a reader of that surface can make. */
const DECLARES = {
  http: 'PUT /v1/agent/collections',
  go: 'PUT /v1/agent/collections',
  mcp: 'the records_declare tool',
  python: 'AgentRecords(url, key, collections={"orders": ',
  typescript: 'createRecords({ collections: { "orders": ',
} as const;

describe('an undeclared collection is declared the way of the surface that asked', () => {
  it.each(SURFACES)('given a caller on %s, when the collection is undeclared, then the message names its own call and no other', (surface) => {
    const message = addressedMessage(noCollection('orders'), surface)!;
    expect(message.startsWith('records: no collection named orders: declare it ')).toBe(true);
    expect(message).toContain(DECLARES[surface]);
    for (const [other, call] of Object.entries(DECLARES)) if (call !== DECLARES[surface]) expect(message, other).not.toContain(call);
  });

  it('given the edge, when it answers the refusal, then the surface it was passed picks the message', () => {
    expect(withMessage(noCollection('orders'), true, 'mcp').message).toContain('records_declare');
    expect(withMessage(noCollection('orders'), true).message).toContain('PUT /v1/agent/collections');
  });

  it('given any other refusal, when addressed, then it has no surface of its own', () => {
    expect(addressedMessage({ error: 'not_found', what: 'record' }, 'python')).toBeNull();
  });

  it('given an x-custodian-client header, when read, then only a known name counts and anything else is plain HTTP', () => {
    expect(surfaceOf('python')).toBe('python');
    expect(surfaceOf('mcp')).toBe('mcp');
    for (const other of [undefined, '', 'Python', 'python ', ['python'], 'cobol', '__proto__', 'toString']) expect(surfaceOf(other)).toBe('http');
  });
});
