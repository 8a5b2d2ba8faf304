import type { Sealer } from '../domain/ports/sealer.ts';
import { callsProjection } from './calls.ts';
import { dedupeDigestsProjection } from './dedupe-digests.ts';
import { jobsProjection } from './jobs.ts';
import type { Projection } from './projection.ts';
import { recordsProjection } from './records.ts';
import { revocationsProjection } from './revocations.ts';
import { retentionProjection } from './retention.ts';
import { createAuditProjection } from './audit.ts';
import { tenantsProjection } from './tenants.ts';
import { collectionsIndexProjection } from './collections-index.ts';

export interface ProjectionDeps {
  readonly sealer: Sealer;
}

/** What the calls model reads (declared beside it). */
const calls: Projection = { ...callsProjection, canHandle: ['CallMinted', 'CallEnded'] };

export const allProjections = (deps: ProjectionDeps): readonly Projection[] => [
  tenantsProjection,
  jobsProjection,
  calls,
  recordsProjection,
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
    recordsProjection,
    ...(deps.sealer ? [dedupeDigestsProjection(deps.sealer)] : []),
    revocationsProjection,
    retentionProjection,
  ].filter((p) => p.order === 'stream');
