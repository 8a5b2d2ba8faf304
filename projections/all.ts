import type { Sealer } from '../domain/ports/sealer.ts';
import { callsProjection } from './calls.ts';
import { dedupeDigestsProjection } from './dedupe-digests.ts';
import { jobsProjection } from './jobs.ts';
import type { Projection } from './projection.ts';
import { applyRecordsBatch, recordsFragments, recordsProjection } from './records.ts';
import { revocationsProjection } from './revocations.ts';
import { retentionProjection } from './retention.ts';
import { createAuditProjection } from './audit.ts';
import { tenantsProjection } from './tenants.ts';
import { collectionsIndexProjection } from './collections-index.ts';

export interface ProjectionDeps {
  readonly sealer: Sealer;
}

/**
 * What the records and calls models read, and the records model's set-based path (both defined
 * beside them). The records model is inline: a put's answer promises its list index, versions
 * and request keys.
 */
const records: Projection = {
  ...recordsProjection,
  canHandle: ['RecordVersionWritten', 'RecordRemoved'],
  inline: true,
  applyBatch: (sql, items) => applyRecordsBatch(sql, items),
  fragments: async (items) => recordsFragments(items),
};
const calls: Projection = { ...callsProjection, canHandle: ['CallMinted', 'CallEnded'] };

export const allProjections = (deps: ProjectionDeps): readonly Projection[] => [
  tenantsProjection,
  jobsProjection,
  calls,
  records,
  dedupeDigestsProjection(deps.sealer),
  revocationsProjection,
  retentionProjection,
  collectionsIndexProjection,
  // One per runner: it keeps its trees' right edges in memory.
  createAuditProjection(),
];

export const projectionNames = ['tenants', 'jobs', 'calls', 'records', 'dedupe-digests', 'revocations', 'retention', 'agent-index', 'audit'] as const;

/**
 * What a Kafka consumer group can build (SPEC §10): the stream-ordered models. The dedupe
 * digests come along only with a sealer (they open sealed digests with the keystore); the
 * audit log needs the log's global order and stays with the service.
 */
export const busProjections = (deps: Partial<ProjectionDeps> = {}): readonly Projection[] =>
  [
    tenantsProjection,
    jobsProjection,
    calls,
    records,
    ...(deps.sealer ? [dedupeDigestsProjection(deps.sealer)] : []),
    revocationsProjection,
    retentionProjection,
  ].filter((p) => p.order === 'stream');
