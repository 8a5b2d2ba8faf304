import { describe, expect, it } from 'vitest';
import { specify } from '../../support/decider.ts';
import { auditFields } from '../../../domain/audit/entries.ts';
import { AUDIT_KINDS } from '../../../domain/audit/kinds.ts';
import { receiptEntryKind } from '../../../domain/audit/receipt-proof.ts';
import { eventRegistry } from '../../../domain/events/registry.ts';
import { canonicalJson } from '../../../domain/shared/hash.ts';
import { tenantDecider } from '../../../domain/tenants/decide.ts';
import { defaultSettings } from '../../../domain/tenants/settings.ts';
import type { TenantStreamEvent } from '../../../domain/tenants/state.ts';

const { given } = specify(tenantDecider);

const created: TenantStreamEvent = { type: 'TenantCreated', data: { tenant: 'acme', settings: defaultSettings(), authority_epoch: 1, created_ms: 1 } };
const held: TenantStreamEvent = { type: 'HoldPlaced', data: { tenant: 'acme', hold: 'h-1', selector: { record: 'plan' }, reason: 'litigation', placed_ms: 2 } };
const released: TenantStreamEvent = { type: 'HoldReleased', data: { tenant: 'acme', hold: 'h-1', released_ms: 3 } };
const removed: TenantStreamEvent = { type: 'TenantRemoved', data: { tenant: 'acme', removed_ms: 4 } };
const remove = { type: 'RemoveTenant', tenant: 'acme', now: 4 } as const;

describe('removalRefusedUnderHold', () => {
  it('given a hold in force, when the tenant is removed, then held, naming the hold and how to release it, and nothing written', () => {
    const refusal = given([created, held]).when(remove).refused();
    expect(refusal).toMatchObject({ error: 'held', holds: ['h-1'] });
    expect(refusal.reason).toContain('DELETE /v1/tenants/acme/holds/<id>');
  });

  it('given every hold released, when the tenant is removed, then TenantRemoved', () => {
    given([created, held, released]).when(remove).then([removed]);
  });

  it('given no tenant, when it is removed, then not found', () => {
    given([]).when(remove).then({ error: 'not_found', what: 'tenant' });
  });
});

describe('a removed tenant', () => {
  it('given it was removed, when it is removed again, then nothing is written', () => {
    given([created, removed]).when(remove).thenNothing();
  });

  it('given it was removed, when any command names it, then removed (410), its id not used again', () => {
    const gone = { error: 'removed', what: 'tenant', tenant: 'acme', removed_ms: 4 };
    given([created, removed]).when({ type: 'CreateTenant', tenant: 'acme', settings: {}, now: 5 }).then(expect.objectContaining(gone));
    given([created, removed])
      .when({ type: 'PlaceHold', tenant: 'acme', hold: 'h-2', selector: { tenant: true }, reason: 'late', now: 5 })
      .then(expect.objectContaining(gone));
    given([created, removed]).when({ type: 'RequestErasure', tenant: 'acme', data_subject: 'user:ada', now: 5 }).then(expect.objectContaining(gone));
    given([created, removed])
      .when({ type: 'ApplyRevocations', tenant: 'acme', items: [{ kind: 'plugin_removed', plugin: 'notes' }], now: 5 })
      .then(expect.objectContaining(gone));
    given([created, removed])
      .when({ type: 'ChangeTenantSettings', tenant: 'acme', changes: { retention_days: 5 }, now: 5 })
      .then(expect.objectContaining(gone));
  });
});

describe('a deferred erasure is logged with its receipt', () => {
  const receipt = { kind: 'erasure', tenant: 'acme', data_subject: 'user:ada', erased: 2, deferred: 1, complete: false, issued_ms: 5, signature: 'c2ln' };

  it('given a pending erasure, when it is deferred, then ErasureDeferred carrying the receipt', () => {
    const requested: TenantStreamEvent = { type: 'ErasureRequested', data: { tenant: 'acme', data_subject: 'user:ada', requested_ms: 4 } };
    given([created, held, requested])
      .when({ type: 'DeferErasure', tenant: 'acme', data_subject: 'user:ada', records: 2, deferred: 1, receipt, now: 5 })
      .then([{ type: 'ErasureDeferred', data: { tenant: 'acme', data_subject: 'user:ada', records: 2, deferred: 1, receipt, deferred_ms: 5 } }]);
  });

  it("its audit entry is an erasure_deferred entry holding the receipt, the kind a deferred receipt's proof names", () => {
    const entry = auditFields(
      { type: 'ErasureDeferred', data: { tenant: 'acme', data_subject: 'user:ada', records: 2, deferred: 1, receipt, deferred_ms: 5 } },
      () => null,
    );
    expect(entry).toEqual({ kind: 'erasure_deferred', subject: 'user:ada', records_erased: 2, deferred: 1, receipt });
    expect(AUDIT_KINDS).toContain(entry!.kind);
    expect(receiptEntryKind(receipt)).toBe('erasure_deferred');
    expect(receiptEntryKind({ ...receipt, complete: true })).toBe('erasure');
    expect(receiptEntryKind({ kind: 'revocation_batch' })).toBe('revocation_receipt');
  });

  it('a completed erasure keeps the entry it was always logged as, byte for byte (signed leaves never change)', () => {
    const done = { ...receipt, deferred: 0, complete: true };
    const entry = auditFields(
      { type: 'SubjectKeyShredded', data: { tenant: 'acme', data_subject: 'user:ada', records: 3, receipt: done, shredded_ms: 6 } },
      () => null,
    );
    expect(canonicalJson({ seq: 7, at: 6, ...entry })).toBe(
      '{"at":6,"kind":"erasure","receipt":{"complete":true,"data_subject":"user:ada","deferred":0,"erased":2,"issued_ms":5,"kind":"erasure","signature":"c2ln","tenant":"acme"},"records_erased":3,"seq":7,"subject":"user:ada"}',
    );
  });
});

describe('the new events are released at version 1', () => {
  it('ErasureDeferred and TenantRemoved decode from their stored form', () => {
    expect(eventRegistry.decode('TenantRemoved', 1, { tenant: 'acme', removed_ms: 4 })).toEqual({ _tag: 'Right', right: removed });
    expect(eventRegistry.decode('ErasureDeferred', 1, { tenant: 'acme', data_subject: 'u', records: 0, deferred: 1, receipt: {}, deferred_ms: 1 })._tag).toBe(
      'Right',
    );
    expect(auditFields(removed, () => null)).toEqual({ kind: 'tenant_removed' });
  });
});
