import { describe, expect, it } from 'vitest';
import { erasureDecider } from '../../../domain/compliance/erase.ts';
import { exportDecider } from '../../../domain/compliance/export.ts';
import { wideningRefusedDecider } from '../../../domain/jobs/widening-refused.ts';
import { importDecider, type ImportedVersion } from '../../../domain/records/import.ts';
import type { RecordVersionWrittenData } from '../../../domain/records/events.ts';
import { specify } from '../../support/decider.ts';

const where = { tenant: 't', plugin: 'notes', scope: 'tenant' };
const holds_at = { stream: 'tenant-t', revision: 0 };
const body = { k: 'key', n: 'n', c: 'c' };
const version: ImportedVersion = {
  key: 'a',
  version: 1,
  body,
  body_bytes: 2,
  kind: 'note',
  state: 'active',
  supersedes: null,
  ends_at: 99,
  subject_kind: 'work',
  closed: false,
  purpose: 'p',
  labels: ['x'],
  created_ms: 5,
};
const written = (key: string, v = 1) => ({ type: 'RecordVersionWritten' as const, data: { ...where, key, version: v } as RecordVersionWrittenData });
const removed = (key: string) => ({ type: 'RecordRemoved' as const, data: { ...where, key, reason: 'retention' as const, removed_ms: 1 } });

describe('import decider: the facts an export shows, into an empty scope', () => {
  const { given } = specify(importDecider);

  it('given an empty scope, when an import, then one RecordVersionWritten per version, written by "import", with no subject or dedupe', () => {
    given([])
      .when({ ...where, versions: [version, { ...version, version: 2, supersedes: null }], now: 7 })
      .then([
        {
          type: 'RecordVersionWritten',
          data: expect.objectContaining({
            ...where,
            key: 'a',
            version: 1,
            body,
            data_subject: null,
            dedupe: null,
            labels: ['x'],
            writer: expect.objectContaining({ job: 'import', agent: 'import', plugin: 'notes' }),
            request_key: 'import#7#notes#tenant#a#1',
          }),
        },
        { type: 'RecordVersionWritten', data: expect.objectContaining({ key: 'a', version: 2, request_key: 'import#7#notes#tenant#a#2' }) },
      ]);
  });

  it('given a scope with history, then not_empty and nothing written', () => {
    given([written('a')])
      .when({ ...where, versions: [version], now: 7 })
      .then(expect.objectContaining({ error: 'not_empty' }));
  });
});

describe('export decider: an answered export is one TenantExported', () => {
  const { given } = specify(exportDecider);
  const exported = { tenant: 't', position: 42, records: 2, versions: 3, sha256: 'ab', now: 9 };

  it('records the position, counts and digest the export was built with', () => {
    given([])
      .when(exported)
      .then([{ type: 'TenantExported', data: { tenant: 't', position: 42, records: 2, versions: 3, sha256: 'ab', exported_ms: 9 } }]);
  });

  it('refuses what no export the service built can be', () => {
    given([])
      .when({ ...exported, position: -1 })
      .then(expect.objectContaining({ error: 'invalid', field: 'position' }));
    given([])
      .when({ ...exported, versions: 1 })
      .then(expect.objectContaining({ error: 'invalid', field: 'versions' }));
  });
});

describe('erasure decider: removes what the scope still holds, once', () => {
  const { given } = specify(erasureDecider);

  it('given live records, when erased, then one RecordRemoved (erasure) per live key, duplicates once', () => {
    given([written('a'), written('b'), written('a', 2)])
      .when({ ...where, keys: ['a', 'b', 'a'], now: 3, holds_at })
      .then([
        { type: 'RecordRemoved', data: { ...where, key: 'a', reason: 'erasure', removed_ms: 3 } },
        { type: 'RecordRemoved', data: { ...where, key: 'b', reason: 'erasure', removed_ms: 3 } },
      ]);
  });

  it('given a record already removed, or never written, then nothing is removed', () => {
    given([written('a'), removed('a')])
      .when({ ...where, keys: ['a', 'z'], now: 3, holds_at })
      .thenNothing();
  });

  it('given a record removed and written again, then it is live and removed', () => {
    given([written('a'), removed('a'), written('a')])
      .when({ ...where, keys: ['a'], now: 3, holds_at })
      .then([{ type: 'RecordRemoved', data: { ...where, key: 'a', reason: 'erasure', removed_ms: 3 } }]);
  });
});

describe('widening refusal: a fact on the parent stream', () => {
  it('records the child, field and reason', () => {
    specify(wideningRefusedDecider)
      .given([])
      .when({ tenant: 't', job: 'p', run: 2, child: 'c', field: 'budget_usd', reason: 'more than the parent', now: 4 })
      .then([
        {
          type: 'EnvelopeWideningRefused',
          data: { tenant: 't', job: 'p', run: 2, child: 'c', field: 'budget_usd', reason: 'more than the parent', refused_ms: 4 },
        },
      ]);
  });
});
