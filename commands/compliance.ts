import { randomUUID } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import type { Clock } from '../domain/ports/clock.ts';
import type { EventStore } from '../domain/ports/event-store.ts';
import type { KeyShredder } from '../domain/ports/key-shredder.ts';
import type { Sql } from '../domain/ports/read-model.ts';
import type { ReceiptSigner } from '../domain/ports/receipt-signer.ts';
import { erasureDecider } from '../domain/compliance/erase.ts';
import { recordsStream } from '../domain/records/rules.ts';
import { isHeld, type Selector } from '../domain/retention/holds.ts';
import type { RetentionVerdict } from '../domain/retention/decide.ts';
import { tenantStream } from '../domain/shared/names.ts';
import { notFound, type Refusal } from '../domain/shared/refusal.ts';
import { tenantDecider } from '../domain/tenants/decide.ts';
import { retentionCandidates, type RetainedRecord } from '../queries/retention.ts';
import { retentionDays } from '../queries/tenants.ts';
import { handleCommand, loadState } from './handle.ts';
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
}

/**
 * Retention, legal holds and erasure (SPEC §7). Removals are facts on the record's scope
 * stream (`RecordRemoved`), so every read model drops the record and a rebuild drops it
 * again; the record's data keys are shredded from the keystore right after.
 */
export const complianceCommands = (deps: ComplianceDeps) => {
  const { store, db, keystore, clock } = deps;

  const holdsOf = async (tenant: string): Promise<Selector[] | null> => {
    const { state } = await loadState(store, tenantStream(tenant), tenantDecider);
    return state.exists ? Object.values(state.holds).map((h) => h.selector) : null;
  };

  /**
   * Erases what the read model nominates for a subject, scope by scope through the erasure
   * decider (a record already gone is not removed twice); held records are deferred.
   */
  const runErasure = async (
    tenant: string,
    subject: string,
    holds: readonly Selector[],
  ): Promise<E.Either<Refusal, { erased: number; deferred: number; receipt: Record<string, unknown> }>> => {
    let deferred = 0;
    let erased = 0;
    let position = 0;
    /** Removes, scope by scope through the erasure decider, the subject's records the read model holds now that are not held. */
    const removeCandidates = async (countHeld: boolean): Promise<E.Either<Refusal, void>> => {
      const byScope = new Map<string, RetainedRecord[]>();
      for (const r of await retentionCandidates(db, tenant, { kind: 'data_subject', subject })) {
        if (isHeld(holds, r)) deferred += countHeld ? 1 : 0;
        else {
          const id = JSON.stringify([r.plugin, r.scope]);
          byScope.set(id, [...(byScope.get(id) ?? []), r]);
        }
      }
      for (const records of byScope.values()) {
        const { plugin, scope } = records[0]!;
        const removed = await handleCommand(
          store,
          recordsStream(tenant, plugin, scope),
          erasureDecider,
          { tenant, plugin, scope, keys: records.map((r) => r.key), now: clock.now() },
          { tenant },
        );
        if (E.isLeft(removed)) return removed;
        for (const e of removed.right.events) if (e.type === 'RecordRemoved') await keystore.shredRecord(tenant, plugin, scope, e.data.key);
        erased += removed.right.events.length;
        if (removed.right.position !== null) position = removed.right.position;
      }
      return E.right(undefined);
    };
    const first = await removeCandidates(true);
    if (E.isLeft(first)) return first;
    // The subject's files go too; a held one defers the erasure like a held record.
    const files = deps.files ? await deps.files.erase(tenant, subject, holds) : null;
    if (files && E.isLeft(files)) return files;
    if (files) {
      deferred += files.right.deferred;
      if (files.right.position !== null) position = Math.max(position, files.right.position);
    }
    const complete = deferred === 0;
    if (complete) {
      // Nothing of theirs is held any more: the subject's key goes, and with it every copy.
      await keystore.shredSubject(tenant, subject);
      // A put of the subject's that committed while the erasure ran (after the read model was
      // read, before the key went) lost its key with the subject's: it is removed too, so no
      // record is left that no one can read. (The records models are written with the append,
      // so the read model now holds every such record; one written after the key went is under
      // a new key and is removed the same way: the erasure was asked before it.)
      // A held record found now is left (the erasure was complete when it was judged).
      const late = await removeCandidates(false);
      if (E.isLeft(late)) return late;
      await keystore.vacuum();
    }
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
    if (complete) {
      const done = await handleCommand(
        store,
        tenantStream(tenant),
        tenantDecider,
        { type: 'CompleteErasure', tenant, data_subject: subject, records: erased, receipt, now: clock.now() },
        { tenant },
      );
      // The fact that the erasure finished is its proof: without it the answer would claim what the log does not hold.
      if (E.isLeft(done)) return done;
      if (done.right.position) position = done.right.position;
    }
    if (position) await deps.settle(position);
    // Only a complete erasure is logged with its receipt (the fact that it finished).
    return E.right({ erased, deferred, receipt: complete && deps.prove ? await deps.prove(tenant, receipt, position) : receipt });
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
      const holds = await holdsOf(tenant);
      if (!holds) return E.left(notFound('tenant'));
      const days = await retentionDays(db, tenant);
      if (days === null) return E.left(notFound('tenant'));
      const now = clock.now();
      // The read model only nominates candidates (it may lag); each scope's decider judges them
      // against the scope's current state. Holds are judged here, from the writers' job trees.
      const byScope = new Map<string, RetainedRecord[]>();
      for (const r of await retentionCandidates(db, tenant, { kind: 'ended_by', now })) {
        const id = JSON.stringify([r.plugin, r.scope]);
        byScope.set(id, [...(byScope.get(id) ?? []), r]);
      }
      const counts: Record<RetentionVerdict, number> = { person_end: 0, retention: 0, renew: 0, deferred: 0, none: 0 };
      let position = 0;
      for (const records of byScope.values()) {
        const { plugin, scope } = records[0]!;
        const decided = await deps.records.retain({
          tenant,
          plugin,
          scope,
          retention_days: days,
          now,
          candidates: records.map((r) => ({ key: r.key, version: r.version, held: isHeld(holds, r) })),
        });
        for (const [key, verdict] of decided.verdicts) {
          counts[verdict]++;
          if (verdict === 'person_end' || verdict === 'retention') await keystore.shredRecord(tenant, plugin, scope, key);
        }
        if (decided.position !== null) position = decided.position;
      }
      const files = deps.files ? await deps.files.retain(tenant, holds) : null;
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
      const holds = (await holdsOf(tenant)) ?? [];
      const [info] = await retentionCandidates(db, tenant, { kind: 'record', plugin, scope, key });
      const held = isHeld(holds, info ?? { plugin, scope, key, data_subjects: [], tree_jobs: [] });
      const decided = await deps.records.retain({
        tenant,
        plugin,
        scope,
        retention_days: (await retentionDays(db, tenant)) ?? 0,
        now: clock.now(),
        candidates: [{ key, version, held }],
      });
      const verdict = decided.verdicts.get(key) ?? 'none';
      if (verdict === 'person_end') await keystore.shredRecord(tenant, plugin, scope, key);
      if (decided.position !== null) await deps.settle(decided.position);
      return verdict;
    },

    async placeHold(tenant: string, selector: Selector, reason: string) {
      const hold = randomUUID();
      const placed = await handleCommand(
        store,
        tenantStream(tenant),
        tenantDecider,
        { type: 'PlaceHold', tenant, hold, selector, reason, now: clock.now() },
        { tenant },
      );
      return E.map(({ position }: { position: number | null }) => ({ hold: { id: hold, selector, reason }, position }))(placed);
    },

    /** Releasing a hold lets the work it deferred run: pending erasures go on at once. */
    async releaseHold(tenant: string, hold: string) {
      const released = await handleCommand(store, tenantStream(tenant), tenantDecider, { type: 'ReleaseHold', tenant, hold, now: clock.now() }, { tenant });
      if (E.isLeft(released)) return released;
      const state = released.right.state;
      const resumed = [];
      if (state.exists) {
        const holds = Object.values(state.holds).map((h) => h.selector);
        for (const subject of state.pending_erasures) {
          const erased = await runErasure(tenant, subject, holds);
          if (E.isLeft(erased)) return erased;
          resumed.push({ data_subject: subject, ...erased.right });
        }
      }
      return E.right({ released: hold, resumed, position: released.right.position });
    },

    async erase(tenant: string, subject: string) {
      const requested = await handleCommand(
        store,
        tenantStream(tenant),
        tenantDecider,
        { type: 'RequestErasure', tenant, data_subject: subject, now: clock.now() },
        { tenant },
      );
      if (E.isLeft(requested)) return requested;
      const state = requested.right.state;
      const holds = state.exists ? Object.values(state.holds).map((h) => h.selector) : [];
      return E.map((erased: { erased: number; deferred: number; receipt: Record<string, unknown> }) => ({ ...erased, position: null as number | null }))(
        await runErasure(tenant, subject, holds),
      );
    },
  };
};

export type ComplianceCommands = ReturnType<typeof complianceCommands>;
