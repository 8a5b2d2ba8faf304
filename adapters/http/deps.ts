import type { JobCommands } from '../../commands/jobs.ts';
import type { StartupCommands } from '../../commands/startup.ts';
import type { FileCommands } from '../../commands/files.ts';
import type { ResultCommands } from '../../commands/results.ts';
import type { TenantCommands } from '../../commands/tenants.ts';
import type { ReadModelStore } from '../../domain/ports/read-model.ts';
import type { EventStore } from '../../domain/ports/event-store.ts';
import type { ProjectionRunner } from '../../projections/runner.ts';
import type { TestClock } from '../clock/system.ts';
import type { RecordsDeps } from './routes/records.ts';
import type { ComplianceDepsHttp } from './routes/compliance.ts';
import type { AuditQueries } from '../../queries/audit.ts';
import type { RevocationCommands } from '../../commands/revocations.ts';
import type { AgentDeps } from './routes/agent.ts';
import type { AuditorKeyCommands } from '../../commands/auditor-keys.ts';
import type { WitnessCommands } from '../../commands/audit-witnesses.ts';

export interface HttpDeps {
  readonly store: EventStore;
  readonly db: ReadModelStore;
  readonly runner: ProjectionRunner;
  readonly tenants: TenantCommands;
  readonly jobs: JobCommands;
  readonly startup: StartupCommands;
  readonly files: FileCommands;
  readonly results: ResultCommands;
  readonly adminKey: string;
  /** Present only when CUSTODIAN_TEST_CLOCK=1. */
  readonly testClock: TestClock | null;
  /** The Kafka relay's topic and checkpoint, when this process runs one. */
  readonly relay?: { readonly topic: string; position(): number } | null;
  /** Where callers reach this server, for the records URL in a call's _meta. */
  readonly publicUrl: () => string;
  readonly records: RecordsDeps;
  readonly revocations: RevocationCommands;
  readonly compliance: ComplianceDepsHttp;
  readonly audit: AuditQueries;
  /** The audit public key, PEM (SPKI). */
  readonly auditPublicKey: string;
  /** The same key as a C2SP note verifier key, under the deployment's log name. */
  readonly auditVkey: string;
  /** Checkpoints as signed notes, and the witness cosignatures they take. */
  readonly witnesses: WitnessCommands;
  /** Agent records and agent keys (SPEC §12); absent, their routes are not served. */
  readonly agent?: AgentDeps;
  /** Auditor keys (SPEC §14): the audit routes take them, tenant-bound, beside the admin key. */
  readonly auditors: AuditorKeyCommands;
}
