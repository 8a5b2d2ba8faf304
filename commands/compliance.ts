import { randomUUID, type KeyObject } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import type { Clock } from '../domain/ports/clock.ts';
import type { EventStore } from '../domain/ports/event-store.ts';
import type { Sql } from '../domain/ports/read-model.ts';
import { recordsStream } from '../domain/records/rules.ts';
import { isHeld, type Selector } from '../domain/retention/holds.ts';
import type { HeldCandidate } from '../domain/retention/holds.ts';
import type { RetentionVerdict } from '../domain/retention/decide.ts';
import { tenantStream } from '../domain/shared/names.ts';
import { notFound, type Refusal } from '../domain/shared/refusal.ts';
import { tenantDecider } from '../domain/tenants/decide.ts';
import type { Keystore } from '../adapters/keys/keystore.ts';
import { signReceipt } from '../adapters/keys/audit-key.ts';
import { appendFacts } from './append-facts.ts';
import { handleCommand, loadState } from './handle.ts';
import type { RecordCommands } from './records.ts';

/** A record as the read model shows it, with what a legal hold looks at. */
interface RetainedRecord extends HeldCandidate {
  readonly version: number;
}

/** The records a rule looks at, with whose they are and which job trees wrote them. */
const candidates = async (db: Sql, tenant: string, where: string, params: unknown[]): Promise<RetainedRecord[]> => {
  const { rows } = await db.query<RetainedRecord>(
    `SELECT r.plugin, r.scope, r.key, r.version,
       (SELECT coalesce(jsonb_agg(DISTINCT v.data_subject) FILTER (WHERE v.data_subject IS NOT NULL), '[]'::jsonb)
          FROM rm_record_versions v WHERE v.tenant = r.tenant AND v.plugin = r.plugin AND v.scope = r.scope AND v.key = r.key) AS data_subjects,
       (SELECT coalesce(jsonb_agg(DISTINCT b->'block'->>'job'), '[]'::jsonb)
          FROM rm_record_versions v JOIN rm_jobs j ON j.tenant = v.tenant AND j.id = v.writer_job, jsonb_array_elements(j.chain) b
          WHERE v.tenant = r.tenant AND v.plugin = r.plugin AND v.scope = r.scope AND v.key = r.key) AS tree_jobs
     FROM rm_records r WHERE r.tenant = $1 AND ${where} ORDER BY r.plugin, r.scope, r.key`,
    [tenant, ...params],
  );
  return rows;
};

export interface ComplianceDeps {
  readonly store: EventStore;
  readonly db: Sql;
  readonly keystore: Keystore;
  readonly clock: Clock;
  readonly auditKey: KeyObject;
  readonly settle: (position: number) => Promise<unknown>;
  /** Retention's removals and renewal requests go through the records command path. */
  readonly records: Pick<RecordCommands, 'retain'>;
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

  const remove = async (tenant: string, r: Pick<RetainedRecord, 'plugin' | 'scope' | 'key'>, reason: 'person_end' | 'retention' | 'erasure') => {
    const position = await appendFacts(store, recordsStream(tenant, r.plugin, r.scope), tenant, [
      { type: 'RecordRemoved', data: { tenant, plugin: r.plugin, scope: r.scope, key: r.key, reason, removed_ms: clock.now() } },
    ]);
    await keystore.shredRecord(tenant, r.plugin, r.scope, r.key);
    return position;
  };

  const runErasure = async (tenant: string, subject: string, holds: readonly Selector[]) => {
    const records = await candidates(db, tenant, `EXISTS (SELECT 1 FROM rm_record_versions v WHERE v.tenant = r.tenant AND v.plugin = r.plugin
      AND v.scope = r.scope AND v.key = r.key AND v.data_subject = $2)`, [subject]);
    let erased = 0;
    let deferred = 0;
    let position = 0;
    for (const r of records) {
      if (isHeld(holds, r)) deferred++;
      else {
        position = await remove(tenant, r, 'erasure');
        erased++;
      }
    }
    const body = { kind: 'erasure', tenant, data_subject: subject, erased, deferred, complete: deferred === 0, issued_ms: clock.now() };
    const receipt = signReceipt(deps.auditKey, body);
    if (deferred === 0) {
      // Nothing of theirs is held any more: the subject's key goes, and with it every copy.
      await keystore.shredSubject(tenant, subject);
      await keystore.vacuum();
      const done = await handleCommand(store, tenantStream(tenant), tenantDecider, { type: 'CompleteErasure', tenant, data_subject: subject, records: erased, receipt, now: clock.now() }, { tenant });
      if (E.isRight(done) && done.right.position) position = done.right.position;
    }
    if (position) await deps.settle(position);
    return { erased, deferred, receipt };
  };

  return {
    async retention(tenant: string): Promise<E.Either<Refusal, { person_deleted: number; removed: number; renewals_requested: number; deferred: number }>> {
      const holds = await holdsOf(tenant);
      if (!holds) return E.left(notFound('tenant'));
      const { rows } = await db.query<{ settings: { retention_days: number } }>('SELECT settings FROM rm_tenants WHERE id = $1', [tenant]);
      const now = clock.now();
      const retentionDays = rows[0]!.settings.retention_days;
      // The read model only nominates candidates (it may lag); each scope's decider judges them
      // against the scope's current state. Holds are judged here, from the writers' job trees.
      const byScope = new Map<string, RetainedRecord[]>();
      for (const r of await candidates(db, tenant, 'r.ends_at <= $2', [now])) {
        const id = JSON.stringify([r.plugin, r.scope]);
        byScope.set(id, [...(byScope.get(id) ?? []), r]);
      }
      const counts: Record<RetentionVerdict, number> = { person_end: 0, retention: 0, renew: 0, deferred: 0, none: 0 };
      let position = 0;
      for (const records of byScope.values()) {
        const { plugin, scope } = records[0]!;
        const decided = await deps.records.retain({
          tenant, plugin, scope, retention_days: retentionDays, now,
          candidates: records.map((r) => ({ key: r.key, version: r.version, held: isHeld(holds, r) })),
        });
        for (const [key, verdict] of decided.verdicts) {
          counts[verdict]++;
          if (verdict === 'person_end' || verdict === 'retention') await keystore.shredRecord(tenant, plugin, scope, key);
        }
        if (decided.position !== null) position = decided.position;
      }
      if (position) await deps.settle(position);
      return E.right({ person_deleted: counts.person_end, removed: counts.retention, renewals_requested: counts.renew, deferred: counts.deferred });
    },

    /** Retention for one person record past its end, before a put reuses its key. */
    async retire(tenant: string, plugin: string, scope: string, key: string, version: number): Promise<RetentionVerdict> {
      const holds = (await holdsOf(tenant)) ?? [];
      const [info] = await candidates(db, tenant, 'r.plugin = $2 AND r.scope = $3 AND r.key = $4', [plugin, scope, key]);
      const held = isHeld(holds, info ?? { plugin, scope, key, data_subjects: [], tree_jobs: [] });
      const { rows } = await db.query<{ settings: { retention_days: number } }>('SELECT settings FROM rm_tenants WHERE id = $1', [tenant]);
      const decided = await deps.records.retain({ tenant, plugin, scope, retention_days: rows[0]?.settings.retention_days ?? 0, now: clock.now(), candidates: [{ key, version, held }] });
      const verdict = decided.verdicts.get(key) ?? 'none';
      if (verdict === 'person_end') await keystore.shredRecord(tenant, plugin, scope, key);
      if (decided.position !== null) await deps.settle(decided.position);
      return verdict;
    },

    async placeHold(tenant: string, selector: Selector, reason: string) {
      const hold = randomUUID();
      const placed = await handleCommand(store, tenantStream(tenant), tenantDecider, { type: 'PlaceHold', tenant, hold, selector, reason, now: clock.now() }, { tenant });
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
        for (const subject of state.pending_erasures) resumed.push({ data_subject: subject, ...(await runErasure(tenant, subject, holds)) });
      }
      return E.right({ released: hold, resumed, position: released.right.position });
    },

    async erase(tenant: string, subject: string) {
      const requested = await handleCommand(store, tenantStream(tenant), tenantDecider, { type: 'RequestErasure', tenant, data_subject: subject, now: clock.now() }, { tenant });
      if (E.isLeft(requested)) return requested;
      const state = requested.right.state;
      const holds = state.exists ? Object.values(state.holds).map((h) => h.selector) : [];
      return E.right({ ...(await runErasure(tenant, subject, holds)), position: null as number | null });
    },
  };
};

export type ComplianceCommands = ReturnType<typeof complianceCommands>;
