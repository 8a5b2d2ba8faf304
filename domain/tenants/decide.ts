import * as E from 'fp-ts/lib/Either.js';
import type { Decider } from '../shared/decider.ts';
import { invalid, notFound, refusal, type Refusal } from '../shared/refusal.ts';
import { applyPatch, defaultSettings, settingsProblem, type TenantSettingsPatch } from './settings.ts';
import type { BatchItem, RecordScopeKind } from './events.ts';
import { applyItems, batchApplied, decideRevocations, earlierAnswer } from './revoke.ts';
import { withdrawnItems } from './withdrawn.ts';
import { installDigest } from './request-digest.ts';
import { evolveTenant, foldTenant, initialTenantState, type TenantState, type TenantStreamEvent } from './state.ts';
import type { Selector } from '../retention/holds.ts';
import { absentTenant, decideRemoval, tenantRemoved } from './remove.ts';

export type TenantCommand =
  | { readonly type: 'PlaceHold'; readonly tenant: string; readonly hold: string; readonly selector: Selector; readonly reason: string; readonly now: number }
  | { readonly type: 'ReleaseHold'; readonly tenant: string; readonly hold: string; readonly now: number }
  | { readonly type: 'RequestErasure'; readonly tenant: string; readonly data_subject: string; readonly now: number }
  | {
      readonly type: 'DeferErasure';
      readonly tenant: string;
      readonly data_subject: string;
      readonly records: number;
      readonly deferred: number;
      readonly receipt: Record<string, unknown>;
      readonly now: number;
    }
  | { readonly type: 'RemoveTenant'; readonly tenant: string; readonly now: number }
  | {
      readonly type: 'CompleteErasure';
      readonly tenant: string;
      readonly data_subject: string;
      readonly records: number;
      readonly receipt: Record<string, unknown>;
      readonly now: number;
    }
  | {
      readonly type: 'ApplyRevocations';
      readonly tenant: string;
      readonly items: readonly BatchItem[];
      readonly request_id?: string | undefined;
      readonly now: number;
    }
  | { readonly type: 'LiftKill'; readonly tenant: string; readonly agent: string; readonly now: number }
  | { readonly type: 'IssueReceipt'; readonly tenant: string; readonly epoch: number; readonly receipt: Record<string, unknown>; readonly now: number }
  | { readonly type: 'CreateTenant'; readonly tenant: string; readonly settings: TenantSettingsPatch; readonly now: number }
  | {
      readonly type: 'ChangeTenantSettings';
      readonly tenant: string;
      readonly changes: TenantSettingsPatch;
      /** Subjects of the tenant's running jobs (from their envelopes), judged with the listed people. */
      readonly running_subjects?: readonly string[] | undefined;
      readonly now: number;
    }
  | {
      readonly type: 'InstallPlugin';
      readonly tenant: string;
      readonly name: string;
      readonly scopes?: readonly RecordScopeKind[] | undefined;
      readonly functions: readonly string[];
      readonly agents: readonly string[];
      readonly startup?: string | undefined;
      readonly request_id?: string | undefined;
      readonly now: number;
    };

type Decision = E.Either<Refusal, readonly TenantStreamEvent[]>;

const ALL_SCOPE_KINDS: readonly RecordScopeKind[] = ['agent', 'project', 'tenant'];

const createTenant = (c: Extract<TenantCommand, { type: 'CreateTenant' }>, s: TenantState): Decision => {
  if (s.exists) return E.left(refusal('already_exists', { tenant: c.tenant }));
  // A removed tenant's streams still hold its (unreadable) events: its id is never used again.
  if (s.removed_ms !== undefined) return E.left(tenantRemoved(c.tenant, s.removed_ms));
  const settings = applyPatch(defaultSettings(), c.settings);
  const problem = settingsProblem(settings);
  if (problem) return E.left(invalid(problem.field, problem.reason));
  return E.right([{ type: 'TenantCreated', data: { tenant: c.tenant, settings, authority_epoch: 1, created_ms: c.now } }]);
};

/**
 * A change that takes authority away is also one revocation batch (SPEC §6), judged on the
 * settings the whole change leaves; a change that only adds is plain settings.
 */
const changeSettings = (c: Extract<TenantCommand, { type: 'ChangeTenantSettings' }>, s: TenantState): Decision => {
  if (!s.exists) return E.left(absentTenant(c.tenant, s));
  const after = applyPatch(s.settings, c.changes);
  const problem = settingsProblem(after);
  if (problem) return E.left(invalid(problem.field, problem.reason));
  const changed: TenantStreamEvent = { type: 'TenantSettingsChanged', data: { tenant: c.tenant, changes: c.changes, changed_ms: c.now } };
  const items = withdrawnItems(s.settings, after);
  const applied = applyItems(s, items);
  const batch = batchApplied(s, items, { ...applied, settings: after }, c.now, undefined, c.running_subjects ?? []);
  // Turning start restrictions on withdraws no item, yet may leave people without a path:
  // it is a batch whenever it takes anything away.
  if (items.length === 0 && batch.data.revocations.length === 0) return E.right([changed]);
  return E.right([changed, batch]);
};

const duplicate = (xs: readonly string[]) => xs.find((x, i) => xs.indexOf(x) !== i);

const installPlugin = (c: Extract<TenantCommand, { type: 'InstallPlugin' }>, s: TenantState): Decision => {
  if (!s.exists) return E.left(absentTenant(c.tenant, s));
  const fnDup = duplicate(c.functions);
  if (fnDup !== undefined) return E.left(invalid('functions', `"${fnDup}" is listed twice`));
  const agentDup = duplicate(c.agents);
  if (agentDup !== undefined) return E.left(invalid('agents', `"${agentDup}" is listed twice`));
  if (c.startup !== undefined && !c.functions.includes(c.startup)) return E.left(invalid('startup', "must name one of the plugin's functions"));
  const scopes = c.scopes && c.scopes.length > 0 ? [...new Set(c.scopes)] : [...ALL_SCOPE_KINDS];
  const asked = installDigest({ name: c.name, scopes, functions: c.functions, agents: c.agents, startup: c.startup ?? null });
  const retried = earlierAnswer(s, c.request_id, 'plugin', asked);
  if (E.isLeft(retried)) return retried;
  if (retried.right) return E.right([]);
  // An upgrade keeps its generation; an install after a removal takes one never used before.
  const installed = s.plugins.get(c.name);
  const installGen = installed?.install_gen ?? (s.install_gens.get(c.name) ?? 0) + 1;
  return E.right([
    {
      type: 'PluginInstalled',
      data: {
        tenant: c.tenant,
        name: c.name,
        install_gen: installGen,
        scopes,
        functions: [...c.functions],
        agents: [...c.agents],
        startup: c.startup ?? null,
        installed_ms: c.now,
        ...(c.request_id === undefined ? {} : { request_id: c.request_id }),
      },
    },
  ]);
};

export const decideTenant = (c: TenantCommand, s: TenantState): Decision => {
  switch (c.type) {
    case 'CreateTenant':
      return createTenant(c, s);
    case 'ChangeTenantSettings':
      return changeSettings(c, s);
    case 'InstallPlugin':
      return installPlugin(c, s);
    case 'ApplyRevocations':
      if (!s.exists) return E.left(absentTenant(c.tenant, s));
      return decideRevocations(s, c.items, c.now, c.request_id);
    case 'LiftKill':
      if (!s.exists) return E.left(absentTenant(c.tenant, s));
      if (!s.killed_agents.includes(c.agent)) return E.left(refusal('not_found', { what: 'kill', agent: c.agent }));
      return E.right([{ type: 'AgentKillLifted', data: { tenant: c.tenant, agent: c.agent, lifted_ms: c.now } }]);
    case 'PlaceHold':
      if (!s.exists) return E.left(absentTenant(c.tenant, s));
      if (Object.keys(c.selector).length === 0)
        return E.left(invalid('selector', 'a selector names at least one of tenant, plugin, scope, record, data_subject, job'));
      return E.right([{ type: 'HoldPlaced', data: { tenant: c.tenant, hold: c.hold, selector: c.selector, reason: c.reason, placed_ms: c.now } }]);
    case 'ReleaseHold':
      if (!s.exists) return E.left(absentTenant(c.tenant, s));
      if (!s.holds[c.hold]) return E.left(notFound('hold'));
      return E.right([{ type: 'HoldReleased', data: { tenant: c.tenant, hold: c.hold, released_ms: c.now } }]);
    case 'RequestErasure':
      if (!s.exists) return E.left(absentTenant(c.tenant, s));
      return E.right(
        s.pending_erasures.includes(c.data_subject)
          ? []
          : [{ type: 'ErasureRequested', data: { tenant: c.tenant, data_subject: c.data_subject, requested_ms: c.now } }],
      );
    case 'DeferErasure': {
      if (!s.exists) return E.left(absentTenant(c.tenant, s));
      const { tenant, data_subject, records, deferred, receipt, now } = c;
      return E.right([{ type: 'ErasureDeferred', data: { tenant, data_subject, records, deferred, receipt, deferred_ms: now } }]);
    }
    case 'RemoveTenant':
      return decideRemoval(c, s);
    case 'CompleteErasure':
      if (!s.exists) return E.left(absentTenant(c.tenant, s));
      return E.right([
        { type: 'SubjectKeyShredded', data: { tenant: c.tenant, data_subject: c.data_subject, records: c.records, receipt: c.receipt, shredded_ms: c.now } },
      ]);
    case 'IssueReceipt':
      if (!s.exists) return E.left(absentTenant(c.tenant, s));
      // One receipt per batch: a retry finishing the same batch keeps the first.
      if (Object.hasOwn(s.receipts, c.epoch)) return E.right([]);
      return E.right([{ type: 'RevocationReceiptIssued', data: { tenant: c.tenant, epoch: c.epoch, receipt: c.receipt, issued_ms: c.now } }]);
  }
};

export const tenantDecider: Decider<TenantCommand, TenantStreamEvent, TenantState> = {
  initialState: initialTenantState,
  evolve: evolveTenant,
  decide: decideTenant,
  fold: foldTenant,
};
