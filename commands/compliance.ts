import { randomUUID } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import type { Clock } from '../domain/ports/clock.ts';
import type { EventStore } from '../domain/ports/event-store.ts';
import type { KeyShredder } from '../domain/ports/key-shredder.ts';
import type { Sql } from '../domain/ports/read-model.ts';
import type { ReceiptSigner } from '../domain/ports/receipt-signer.ts';
import { erasedVersions, erasureDecider, type EraseRecords } from '../domain/compliance/erase.ts';
import { recordsStream } from '../domain/records/rules.ts';
import { isHeld, type HoldsAt, type Selector } from '../domain/retention/holds.ts';
import type { RetentionVerdict } from '../domain/retention/decide.ts';
import { notFound, type Refusal } from '../domain/shared/refusal.ts';
import { tenantDecider, type TenantCommand } from '../domain/tenants/decide.ts';
import { retentionCandidates, type RetainedRecord } from '../queries/retention.ts';
import { retentionDays } from '../queries/tenants.ts';
import { readableHead } from '../queries/readable-head.ts';
import { handle, handleCommand, type HandlerOptions } from './handle.ts';
import { jobDecider } from '../domain/jobs/decide.ts';
import { jobStream, tenantStream } from '../domain/shared/names.ts';
import { runningJobs } from '../queries/running-jobs.ts';
import { absentTenant } from '../domain/tenants/remove.ts';
import { tenantFolded } from './tenant-fold.ts';
import type { TenantSnapshots } from '../queries/tenant-snapshots.ts';
import type { TenantState, TenantStreamEvent } from '../domain/tenants/state.ts';
import type { RecordCommands } from './records.ts';
import type { FileRetention } from './file-retention.ts';
import type { ProveLogged } from './receipt-log.ts';

export interface ComplianceDeps {
  readonly store: EventStore;
  readonly db: Sql;
  readonly keystore: KeyShredder;
  readonly clock: Clock;
  readonly receipts: ReceiptSigner;
  readonly settle: (position: number) => Promise<unknown>;
  /** Retention's removals and renewal requests go through the records command path. */
  readonly records: Pick<RecordCommands, 'retain'>;
  /** Files between tools (SPEC §13) in retention runs and erasures; none: records only. */
  readonly files?: FileRetention;
  /** Finishes a receipt with the proof that it was logged; none: receipts are answered as signed. */
  readonly prove?: ProveLogged;
  /** Where a tenant not folded here starts (its MACed snapshot); none: from its first event. */
  readonly tenantSnapshots?: TenantSnapshots;
}

/**
 * Retention, legal holds and erasure (SPEC §7). Removals are facts on the record's scope
 * stream (`RecordRemoved`), so every read model drops the record and a rebuild drops it
 * again; the record's data keys are shredded from the keystore right after.
 */
export const complianceCommands = (deps: ComplianceDeps) => {
  const { store, db, keystore, clock } = deps;
  const tenantFold = tenantFolded(store, deps.tenantSnapshots);
  /** A command on the tenant's stream, which is folded (when not cached here) in one linear fold. */
  const onTenant = (tenant: string, command: TenantCommand, options: HandlerOptions<TenantStreamEvent, TenantState, TenantCommand> = {}) =>
    handle(store, tenantStream(tenant), tenantDecider, command, { tenant, causation: randomUUID(), correlation: null }, { snapshot: tenantFold, ...options });

  /** The tenant's holds as they stand now, and the tenant stream's revision they were read at (null: no tenant). */
  const holdsNow = async (tenant: string): Promise<HoldsAt | null> => {
    // One linear fold of the tenant's stream (event by event, its growing maps are copied per event).
    const folded = await tenantFold(tenantStream(tenant));
    if (!folded || !folded.state.exists) return null;
    const { state, revision } = folded;
    return { holds: Object.values(state.holds).map((h) => h.selector), at: { stream: tenantStream(tenant), revision: revision as number | 'no_stream' } };
  };
  /** The same, for a run that found its tenant: a tenant is never removed. */
  const holdsOf = (tenant: string) => async (): Promise<HoldsAt> =>
    (await holdsNow(tenant)) ?? { holds: [], at: { stream: tenantStream(tenant), revision: 'no_stream' } };

  /**
   * Removes one scope's nominated records of a data subject through the erasure decider (a
   * record already gone is not removed twice), judging holds on every attempt and appending on
   * the condition that none was placed since: a record held when its removal is appended is
   * kept, and counted in `deferred`.
   */
  const eraseScope = async (tenant: string, records: readonly RetainedRecord[]) => {
    const { plugin, scope } = records[0]!;
    let held = 0;
    const removed = await handle(
      store,
      recordsStream(tenant, plugin, scope),
      erasureDecider,
      async (): Promise<EraseRecords> => {
        const h = await holdsOf(tenant)();
        // Whose each record is and which trees wrote it, read again after the scope's state was
        // caught up (the models are written with each append): a version written since the
        // listing, by someone a hold selects, holds the record. A later one moves the scope's
        // revision, and this is decided again.
        const now = await retentionCandidates(db, tenant, { kind: 'records', plugin, scope, keys: records.map((r) => r.key) });
        const kept = now.filter((r) => isHeld(h.holds, r));
        held = kept.length;
        return { tenant, plugin, scope, keys: now.filter((r) => !kept.includes(r)).map((r) => r.key), now: clock.now(), holds_at: h.at };
      },
      { tenant, causation: randomUUID(), correlation: null },
      { conditions: (c) => ({ unmoved: [c.holds_at] }), newest: erasedVersions },
    );
    if (E.isLeft(removed)) return removed;
    for (const e of removed.right.events) if (e.type === 'RecordRemoved') await keystore.shredRecord(tenant, plugin, scope, e.data.key);
    return E.right({ erased: removed.right.events.length, deferred: held, position: removed.right.position });
  };

  /** The subject's records the read model holds now, by scope (written with each append, so none committed is missing). */
  const subjectRecords = async (tenant: string, subject: string) => {
    const byScope = new Map<string, RetainedRecord[]>();
    for (const r of await retentionCandidates(db, tenant, { kind: 'data_subject', subject })) {
      const id = JSON.stringify([r.plugin, r.scope]);
      byScope.set(id, [...(byScope.get(id) ?? []), r]);
    }
    return [...byScope.values()];
  };

  /**
   * Erases a subject: their records scope by scope and their files, each removal decided
   * against the holds in force when it is appended; then, only if nothing of theirs is held,
   * their key — shredded only once no record of theirs is left (checked while no put can seal
   * under that key), so a put that committed while the erasure ran is either removed here or,
   * held, keeps the key and makes the erasure incomplete. Never acknowledged and lost.
   */
  const runErasure = async (
    tenant: string,
    subject: string,
  ): Promise<E.Either<Refusal, { erased: number; deferred: number; receipt: Record<string, unknown> }>> => {
    let erased = 0;
    let position = 0;
    /** One pass over what the read model holds of the subject now: answers how many it found held. */
    const pass = async (): Promise<E.Either<Refusal, number>> => {
      let held = 0;
      for (const records of await subjectRecords(tenant, subject)) {
        const done = await eraseScope(tenant, records);
        if (E.isLeft(done)) return done;
        erased += done.right.erased;
        held += done.right.deferred;
        if (done.right.position !== null) position = Math.max(position, done.right.position);
      }
      return E.right(held);
    };
    const first = await pass();
    if (E.isLeft(first)) return first;
    let deferred = first.right;
    // The subject's files go too; a held one defers the erasure like a held record.
    const files = deps.files ? await deps.files.erase(tenant, subject, holdsOf(tenant)) : null;
    if (files && E.isLeft(files)) return files;
    if (files) {
      deferred += files.right.deferred;
      if (files.right.position !== null) position = Math.max(position, files.right.position);
    }
    let complete = false;
    // Nothing of theirs held: the subject's key goes, and with it every copy — unless a record
    // of theirs committed meanwhile; then that one is erased (or found held) and we look again.
    // Each round removes what it finds, so the rounds end; a subject still being written to
    // at this pace is left incomplete (and said so) rather than looped on.
    for (let round = 0; deferred === 0 && round < 20; round++) {
      const shredded = await keystore.shredSubject(
        tenant,
        subject,
        async () => (await retentionCandidates(db, tenant, { kind: 'data_subject', subject })).length > 0,
      );
      if (shredded !== null) {
        complete = true;
        break;
      }
      const late = await pass();
      if (E.isLeft(late)) return late;
      deferred += late.right;
    }
    if (complete) await keystore.vacuum();
    const body = {
      kind: 'erasure',
      tenant,
      data_subject: subject,
      erased,
      deferred,
      complete,
      ...(files?.right.any ? { files_erased: files.right.removed } : {}),
      issued_ms: clock.now(),
    };
    const receipt = deps.receipts.sign(body);
    // Every receipt is logged with the fact it signs: a complete erasure's (it finished), and a
    // deferred one's (what was erased so far and what waits) — each is its proof of logging, and
    // without it the answer would claim what the log does not hold.
    const now = clock.now();
    const logged = await onTenant(
      tenant,
      complete
        ? { type: 'CompleteErasure', tenant, data_subject: subject, records: erased, receipt, now }
        : { type: 'DeferErasure', tenant, data_subject: subject, records: erased, deferred, receipt, now },
    );
    if (E.isLeft(logged)) return logged;
    if (logged.right.position) position = logged.right.position;
    if (position) await deps.settle(position);
    return E.right({ erased, deferred, receipt: deps.prove ? await deps.prove(tenant, receipt, position) : receipt });
  };

  return {
    async retention(
      tenant: string,
    ): Promise<
      E.Either<
        Refusal,
        { person_deleted: number; removed: number; renewals_requested: number; deferred: number; files?: { removed: number; deferred: number } }
      >
    > {
      if (!(await holdsNow(tenant))) {
        const folded = await tenantFold(tenantStream(tenant));
        return E.left(folded && !folded.state.exists ? absentTenant(tenant, folded.state) : notFound('tenant'));
      }
      const days = await retentionDays(db, tenant);
      if (days === null) return E.left(notFound('tenant'));
      const now = clock.now();
      // The read model only nominates candidates (it may lag); each scope's decider judges them
      // against the scope's current state, and the holds in force as its removals are appended.
      const byScope = new Map<string, RetainedRecord[]>();
      for (const r of await retentionCandidates(db, tenant, { kind: 'ended_by', now })) {
        const id = JSON.stringify([r.plugin, r.scope]);
        byScope.set(id, [...(byScope.get(id) ?? []), r]);
      }
      const counts: Record<RetentionVerdict, number> = { person_end: 0, retention: 0, renew: 0, deferred: 0, none: 0 };
      let position = 0;
      for (const records of byScope.values()) {
        const { plugin, scope } = records[0]!;
        const decided = await deps.records.retain(
          {
            tenant,
            plugin,
            scope,
            retention_days: days,
            now,
            candidates: records,
          },
          holdsOf(tenant),
        );
        for (const [key, verdict] of decided.verdicts) {
          counts[verdict]++;
          if (verdict === 'person_end' || verdict === 'retention') await keystore.shredRecord(tenant, plugin, scope, key);
        }
        if (decided.position !== null) position = decided.position;
      }
      const files = deps.files ? await deps.files.retain(tenant, holdsOf(tenant)) : null;
      if (files && E.isLeft(files)) return files;
      if (files?.right.position) position = Math.max(position, files.right.position);
      if (position) await deps.settle(position);
      return E.right({
        person_deleted: counts.person_end,
        removed: counts.retention,
        renewals_requested: counts.renew,
        deferred: counts.deferred,
        // Only a tenant that holds files is told about them: the answer stays as it was otherwise.
        ...(files?.right.any ? { files: { removed: files.right.removed, deferred: files.right.deferred } } : {}),
      });
    },

    /** Retention for one person record past its end, before a put reuses its key. */
    async retire(tenant: string, plugin: string, scope: string, key: string, version: number): Promise<RetentionVerdict> {
      const [info] = await retentionCandidates(db, tenant, { kind: 'record', plugin, scope, key });
      const decided = await deps.records.retain(
        {
          tenant,
          plugin,
          scope,
          retention_days: (await retentionDays(db, tenant)) ?? 0,
          now: clock.now(),
          candidates: [{ plugin, scope, key, data_subjects: [], tree_jobs: [], ...info, version }],
        },
        holdsOf(tenant),
      );
      const verdict = decided.verdicts.get(key) ?? 'none';
      if (verdict === 'person_end') await keystore.shredRecord(tenant, plugin, scope, key);
      if (decided.position !== null) await deps.settle(decided.position);
      return verdict;
    },

    async placeHold(tenant: string, selector: Selector, reason: string) {
      const hold = randomUUID();
      // Watched: a removal appended on the condition of the holds it read never commits between
      // its check and its append, so from this answer on no removal of what it selects follows.
      const placed = await onTenant(tenant, { type: 'PlaceHold', tenant, hold, selector, reason, now: clock.now() }, { conditions: () => ({ watched: true }) });
      return E.map(({ position }: { position: number | null }) => ({ hold: { id: hold, selector, reason }, position }))(placed);
    },

    /** Releasing a hold lets the work it deferred run: pending erasures go on at once. */
    async releaseHold(tenant: string, hold: string) {
      const released = await onTenant(tenant, { type: 'ReleaseHold', tenant, hold, now: clock.now() });
      if (E.isLeft(released)) return released;
      const state = released.right.state;
      const resumed = [];
      if (state.exists) {
        for (const subject of state.pending_erasures) {
          const erased = await runErasure(tenant, subject);
          if (E.isLeft(erased)) return erased;
          resumed.push({ data_subject: subject, ...erased.right });
        }
      }
      return E.right({ released: hold, resumed, position: released.right.position });
    },

    /**
     * Removes a tenant by crypto-shredding: `TenantRemoved` is decided on the tenant's stream
     * (refused while any legal hold is in force — a hold placed meanwhile moves the stream, and
     * the removal is decided again), its running jobs stop (their tickets die), then every key
     * of the tenant is deleted and the keystore vacuumed, so nothing sealed for it opens again.
     * A removal of a removed tenant writes nothing and shreds whatever an interrupted one left.
     */
    async removeTenant(
      tenant: string,
    ): Promise<
      E.Either<Refusal, { tenant: string; removed_ms: number; already_removed: boolean; stopped: string[]; keys_shredded: number; position: number | null }>
    > {
      const before = await tenantFold(tenantStream(tenant));
      const removed = await onTenant(tenant, { type: 'RemoveTenant', tenant, now: clock.now() });
      if (E.isLeft(removed)) return removed;
      const { state, position } = removed.right;
      if (state.exists || state.removed_ms === undefined) throw new Error('a tenant removal left a tenant');
      const stopped: string[] = [];
      let last = position;
      let keys_shredded = 0;
      const epoch = before?.state.exists ? before.state.authority_epoch : 0;
      // Every job started before the removal is in the jobs model once it holds the removal's
      // position. A start decided just before the removal may commit after that listing: a
      // second pass, once the keys went, stops it and shreds whatever was sealed meanwhile.
      for (let pass = 0; pass < 2; pass++) {
        await deps.settle(pass === 0 && position !== null ? position : await store.headPosition());
        for (const job of await runningJobs(db, tenant)) {
          const stop = await handleCommand(
            store,
            jobStream(tenant, job.id),
            jobDecider,
            { type: 'StopJob', job: job.id, epoch, reasons: ['tenant_removed'], now: clock.now() },
            { tenant },
          );
          if (E.isRight(stop) && stop.right.events.length > 0) {
            stopped.push(job.id);
            last = stop.right.position ?? last;
          }
        }
        keys_shredded += await keystore.shredTenant(tenant);
      }
      if (keys_shredded > 0) await keystore.vacuum();
      if (last !== null) await deps.settle(last);
      return E.right({ tenant, removed_ms: state.removed_ms, already_removed: position === null, stopped, keys_shredded, position: last });
    },

    async erase(tenant: string, subject: string) {
      const requested = await onTenant(tenant, { type: 'RequestErasure', tenant, data_subject: subject, now: clock.now() });
      if (E.isLeft(requested)) return requested;
      // Every put that took a position before the request has committed or given up before the
      // erasure looks (positions follow transaction ids): what the log shows before the request
      // is what the erasure finds, so nothing written "before" it can outlive a complete one.
      if (requested.right.position !== null) await readableHead(store, requested.right.position, 60_000);
      return E.map((erased: { erased: number; deferred: number; receipt: Record<string, unknown> }) => ({ ...erased, position: null as number | null }))(
        await runErasure(tenant, subject),
      );
    },
  };
};

export type ComplianceCommands = ReturnType<typeof complianceCommands>;
