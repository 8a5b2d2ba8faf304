import { describe, expect, it } from 'vitest';
import { RecordsRequest } from '../../../adapters/http/records-schemas.ts';
import { RevocationsBody } from '../../../adapters/http/schemas.ts';
import { refusalOfIssue, type SchemaIssue } from '../../../adapters/http/schema-refusal.ts';

/** The refusal the records route (and the edge's validation) answers for this body. */
const refusalFor = (schema: typeof RecordsRequest | typeof RevocationsBody, body: unknown) => {
  const parsed = schema.safeParse(body);
  if (parsed.success) throw new Error('the body was accepted');
  return refusalOfIssue(parsed.error.issues[0] as SchemaIssue, schema, body);
};

describe('a value outside a union names the values allowed there', () => {
  it('given an op the records API does not have, when refused, then the message names put, get, history and list', () => {
    const r = refusalFor(RecordsRequest, { op: 'zap', scope: 'tenant', record_key: 'k' });
    expect(r).toMatchObject({ error: 'invalid', field: 'op' });
    expect(r.message).toBe('op is text: send one of "put", "get", "history", "list"');
  });

  it('given no op at all, when refused, then the message names the ops too', () => {
    expect(refusalFor(RecordsRequest, { scope: 'tenant' }).message).toBe('op is missing: send one of "put", "get", "history", "list"');
  });

  it('given a revocation of an unknown kind, when refused, then the message names every kind', () => {
    const r = refusalFor(RevocationsBody, { revocations: [{ kind: 'kill_everything' }] });
    expect(r.field).toBe('revocations.0.kind');
    expect(r.message).toBe('revocations.0.kind is text: send one of "kill_agent", "grant_narrowed", "plugin_removed", "api_key_revoked", "person_change"');
  });

  it('given only the schema (an issue without its options), when refused, then the values come from the union itself', () => {
    const issue: SchemaIssue = { code: 'invalid_union', path: ['op'], message: 'Invalid input', discriminator: 'op', note: 'No matching discriminator' };
    expect(refusalOfIssue(issue, RecordsRequest, { op: 'zap' }).message).toBe('op is text: send one of "put", "get", "history", "list"');
  });
});
