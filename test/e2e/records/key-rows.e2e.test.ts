import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresKeystore } from '../../../adapters/keys/keystore.ts';
import { caller, warm } from '../../support/records.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * A new record's data key commits with the put's append and only with it (SPEC: a refusal
 * writes nothing): a refused put of a new key leaves no key row, on a cold ticket and a warm one.
 */
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
  await svc.admin('POST', '/v1/tenants', { id: 'acme', settings: { caps: { records: 3, bytes: 1 << 20 } } });
  await svc.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] });
});
afterAll(async () => {
  await svc?.stop();
});

const keyRows = async (scope: string) =>
  (
    await svc.pool.query<{ record_key: string; key_id: string }>(
      `SELECT record_key, key_id::text FROM custodian_data_keys WHERE tenant = 'acme' AND scope = $1 ORDER BY record_key`,
      [scope],
    )
  ).rows;

describe('a new record’s data key is written with its put’s append', () => {
  it('given a put refused by the cap, on a cold ticket and on a warm one, then no key row is left; the written records have one each', async () => {
    const cold = await caller(svc, 'acme');
    for (const k of ['a', 'b', 'c']) expect((await cold.rec({ op: 'put', scope: 'project:cap', record_key: k, body: { k }, expect: 0 })).status).toBe(200);
    const over = await cold.rec({ op: 'put', scope: 'project:cap', record_key: 'd', body: { k: 'd' }, expect: 0 });
    expect(over).toMatchObject({ status: 409, body: { error: 'full' } });
    const warmed = await caller(svc, 'acme');
    await warm(svc, warmed);
    expect((await warmed.rec({ op: 'put', scope: 'project:cap', record_key: 'e', body: { k: 'e' }, expect: 0 })).body.error).toBe('full');
    expect((await keyRows('project:cap')).map((r) => r.record_key)).toEqual(['a', 'b', 'c']);
  });

  it('given a key row already there for a record with no version (left by an earlier build), when a warm put writes the record, then it uses that key and reads back', async () => {
    // An earlier build wrote the key before the decision: a key row for a record never written.
    const keystore = await postgresKeystore(svc.pool, svc.masterKey);
    await keystore.seal({ tenant: 'acme', plugin: 'notes', scope: 'project:orphan', key: 'o', version: 1, data_subject: null }, 'body', '{}');
    const [orphan] = await keyRows('project:orphan');
    expect(orphan).toBeDefined();
    const c = await caller(svc, 'acme');
    await warm(svc, c);
    // The warm put makes a new key without looking; its row conflicts, and the request, admitted again in full, finds the old one.
    expect(await c.rec({ op: 'put', scope: 'project:orphan', record_key: 'o', body: { v: 'kept' }, expect: 0 })).toMatchObject({
      status: 200,
      body: { version: 1 },
    });
    expect(await c.rec({ op: 'get', scope: 'project:orphan', record_key: 'o' })).toMatchObject({ status: 200, body: { record: { body: { v: 'kept' } } } });
    expect(await keyRows('project:orphan')).toEqual([orphan]);
    const { rows } = await svc.pool.query<{ k: string }>(
      `SELECT data->'body'->>'k' AS k FROM custodian_events WHERE type = 'RecordVersionWritten' AND data->>'scope' = 'project:orphan'`,
    );
    expect(rows.map((r) => r.k)).toEqual([orphan!.key_id]);
  });
});
