import type { DomainEvent } from '../events/registry.ts';

/** What the audit log says of a job when an event names one. */
export interface JobFacts {
  readonly agent: string;
  readonly purpose: string;
  readonly subject: string;
}

/** One audit entry before it gets its place (`seq`) and time (`at`). Never a body. */
export interface AuditFields {
  readonly kind: string;
  readonly job?: string;
  readonly agent?: string;
  readonly purpose?: string;
  readonly subject?: string;
  readonly epoch?: number;
  readonly records?: readonly { scope: string; key: string; version: number }[];
  readonly [field: string]: unknown;
}

const withJob = (job: string, facts: JobFacts | null) => ({ job, ...(facts ? { agent: facts.agent, purpose: facts.purpose, subject: facts.subject } : {}) });

/**
 * SPEC §9: the audit-relevant events and what their entries say. `jobFacts` looks up the run
 * of the job an event names (the reader, the writer): by run, because an id started again is
 * another job, and an entry must read the same however late it is rebuilt. Events that are
 * not audit-relevant answer null.
 */
export const auditFields = (
  e: DomainEvent,
  jobFacts: (job: string, run: number) => JobFacts | null,
  /** The newest version a record had when it was removed (its versions are 1…newest), or null when unknown. */
  newestVersion: (plugin: string, scope: string, key: string) => number | null = () => null,
): AuditFields | null => {
  switch (e.type) {
    case 'RecordsRead': {
      const d = e.data;
      return {
        kind: d.startup ? 'startup_read' : 'read',
        ...withJob(d.job, jobFacts(d.job, d.run)),
        purpose: d.purpose,
        call: d.call,
        step: d.step,
        op: d.op,
        plugin: d.plugin,
        records: d.records,
        withheld: d.withheld,
      };
    }
    case 'RecordVersionWritten': {
      const d = e.data;
      return {
        kind: 'write',
        ...withJob(d.writer.job, jobFacts(d.writer.job, d.writer.run)),
        purpose: d.purpose,
        plugin: d.plugin,
        records: [{ scope: d.scope, key: d.key, version: d.version }],
        subject_kind: d.subject_kind,
        state: d.state,
        closed: d.closed,
      };
    }
    case 'JobStarted':
      return {
        kind: 'job_started',
        job: e.data.job,
        agent: e.data.agent,
        purpose: e.data.purpose,
        subject: e.data.subject,
        plugin: e.data.plugin,
        run: e.data.run,
        parent: e.data.parent,
        data_subject: e.data.data_subject,
      };
    case 'JobEnded':
      return { kind: 'job_ended', ...withJob(e.data.job, jobFacts(e.data.job, e.data.run)), run: e.data.run };
    case 'JobStopped':
      return { kind: 'job_stopped', ...withJob(e.data.job, jobFacts(e.data.job, e.data.run)), run: e.data.run, epoch: e.data.epoch, reasons: e.data.reasons };
    case 'EnvelopeBlockAppended': {
      // A child's stream repeats its parent's blocks; the log records each block once, where it was made.
      const b = e.data.signed.block;
      if (b.job !== e.data.job) return null;
      return {
        kind: 'envelope_block',
        job: b.job,
        agent: b.agent,
        purpose: b.purpose,
        subject: b.subject,
        epoch: b.epoch,
        depth: b.depth,
        index: e.data.index,
        scopes: b.scopes,
        mac: e.data.signed.mac,
      };
    }
    case 'EnvelopeWideningRefused':
      return {
        kind: 'widening_refused',
        ...withJob(e.data.job, jobFacts(e.data.job, e.data.run)),
        child: e.data.child,
        field: e.data.field,
        reason: e.data.reason,
      };
    case 'RevocationBatchApplied':
      return { kind: 'revocation', epoch: e.data.epoch, items: e.data.items, revocations: e.data.revocations };
    case 'RevocationReceiptIssued': {
      const r = e.data.receipt as { stopped?: unknown; indeterminate?: unknown; signature?: unknown };
      return { kind: 'revocation_receipt', epoch: e.data.epoch, stopped: r.stopped ?? [], indeterminate: r.indeterminate ?? [], receipt: e.data.receipt };
    }
    case 'HoldPlaced':
      return { kind: 'hold_placed', hold: e.data.hold, selector: e.data.selector, reason: e.data.reason };
    case 'HoldReleased':
      return { kind: 'hold_released', hold: e.data.hold };
    case 'ErasureRequested':
      return { kind: 'erasure_requested', subject: e.data.data_subject };
    case 'SubjectKeyShredded':
      return { kind: 'erasure', subject: e.data.data_subject, records_erased: e.data.records, receipt: e.data.receipt };
    case 'ErasureDeferred':
      return {
        kind: 'erasure_deferred',
        subject: e.data.data_subject,
        records_erased: e.data.records,
        deferred: e.data.deferred,
        receipt: e.data.receipt,
      };
    case 'TenantRemoved':
      return { kind: 'tenant_removed' };
    case 'RecordRemoved': {
      // A removal takes every version: the entry names the last one and how many went (1…last).
      const last = newestVersion(e.data.plugin, e.data.scope, e.data.key);
      return {
        kind: 'record_removed',
        plugin: e.data.plugin,
        records: [{ scope: e.data.scope, key: e.data.key, version: last ?? 0 }],
        ...(last === null ? {} : { versions_removed: last }),
        reason: e.data.reason,
      };
    }
    case 'RenewalRequested':
      return { kind: 'renewal_requested', plugin: e.data.plugin, records: [{ scope: e.data.scope, key: e.data.key, version: e.data.version }] };
    case 'AgentRecordsRead':
      return { kind: 'agent_read', agent: e.data.agent, op: e.data.op, collection: e.data.collection, agent_records: e.data.records };
    case 'TenantExported':
      return { kind: 'export', position: e.data.position, records_exported: e.data.records, versions: e.data.versions, sha256: e.data.sha256 };
    case 'StartupTextAssembled': {
      // The job's trace step and log line for start-up text: counts only, never the text.
      const d = e.data;
      return {
        kind: 'startup_text',
        ...withJob(d.job, jobFacts(d.job, d.run)),
        run: d.run,
        budget: d.budget,
        plugins: d.plugins,
        kept: d.kept,
        left_out: d.left_out,
        tokens: d.tokens,
      };
    }
    case 'FilesHanded': {
      // An admin start handed files of other trees to the new job's tree (SPEC §13): digests, never bytes.
      const d = e.data;
      return {
        kind: 'files_handed',
        ...withJob(d.job, jobFacts(d.job, d.run)),
        run: d.run,
        tree: d.tree,
        files: d.files.map((f) => ({ ref: `oz0-file:sha256:${f.sha256}`, size: f.size, from_tree: f.from_tree })),
      };
    }
    case 'AgentKillLifted':
      return { kind: 'kill_lifted', agent: e.data.agent };
    // An agent's own records: ids only, never values.
    case 'AgentRecordPut':
      return { kind: 'agent_write', agent: e.data.agent, collection: e.data.collection, id: e.data.id, version: e.data.seq };
    case 'AgentRecordDeleted':
      return { kind: 'agent_delete', agent: e.data.agent, collection: e.data.collection, id: e.data.id };
    case 'AgentPersonForgotten':
      return { kind: 'agent_person_forgotten', agent: e.data.agent, agent_records: e.data.records, names: e.data.names.length };
    case 'FileRemoved':
      return { kind: 'file_removed', tree: e.data.tree, file: `oz0-file:sha256:${e.data.sha256}`, reason: e.data.reason };
    default:
      return null;
  }
};

/** `record` filter values: `<scope>#<key>` or `<scope>#<key>#<version>` (# is in no scope or key). */
export const recordRefs = (records: AuditFields['records']) => (records ?? []).flatMap((r) => [`${r.scope}#${r.key}`, `${r.scope}#${r.key}#${r.version}`]);

/** The text an auditor's tool checks a checkpoint's signature over (SPEC §9). */
export const checkpointText = (origin: string, size: number, rootB64: string) => `${origin}\n${size}\n${rootB64}\n`;
/** A tenant log's origin: the deployment's log name, then the tenant (unique across deployments). */
export const originOf = (logName: string, tenant: string) => `${logName}/${tenant}`;
