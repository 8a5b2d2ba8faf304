import * as E from 'fp-ts/lib/Either.js';
import type { Decider } from '../shared/decider.ts';
import { invalid, notFound, refusal, type Refusal } from '../shared/refusal.ts';
import { applyPatch, defaultSettings, settingsProblem, type TenantSettingsPatch } from './settings.ts';
import type { BatchItem, RecordScopeKind, TenantEvent } from './events.ts';
import { decideRevocations } from './revoke.ts';
import { evolveTenant, initialTenantState, type TenantState } from './state.ts';

export type TenantCommand =
  | { readonly type: 'ApplyRevocations'; readonly tenant: string; readonly items: readonly BatchItem[]; readonly now: number }
  | { readonly type: 'IssueReceipt'; readonly tenant: string; readonly epoch: number; readonly receipt: Record<string, unknown>; readonly now: number }
  | { readonly type: 'CreateTenant'; readonly tenant: string; readonly settings: TenantSettingsPatch; readonly now: number }
  | { readonly type: 'ChangeTenantSettings'; readonly tenant: string; readonly changes: TenantSettingsPatch; readonly now: number }
  | {
      readonly type: 'InstallPlugin';
      readonly tenant: string;
      readonly name: string;
      readonly scopes?: readonly RecordScopeKind[] | undefined;
      readonly functions: readonly string[];
      readonly agents: readonly string[];
      readonly startup?: string | undefined;
      readonly now: number;
    };

type Decision = E.Either<Refusal, readonly TenantEvent[]>;

const ALL_SCOPE_KINDS: readonly RecordScopeKind[] = ['agent', 'project', 'tenant'];

const createTenant = (c: Extract<TenantCommand, { type: 'CreateTenant' }>, s: TenantState): Decision => {
  if (s.exists) return E.left(refusal('already_exists', { tenant: c.tenant }));
  const settings = applyPatch(defaultSettings(), c.settings);
  const problem = settingsProblem(settings);
  if (problem) return E.left(invalid(problem.field, problem.reason));
  return E.right([{ type: 'TenantCreated', data: { tenant: c.tenant, settings, authority_epoch: 1, created_ms: c.now } }]);
};

const changeSettings = (c: Extract<TenantCommand, { type: 'ChangeTenantSettings' }>, s: TenantState): Decision => {
  if (!s.exists) return E.left(notFound('tenant'));
  const problem = settingsProblem(applyPatch(s.settings, c.changes));
  if (problem) return E.left(invalid(problem.field, problem.reason));
  return E.right([{ type: 'TenantSettingsChanged', data: { tenant: c.tenant, changes: c.changes, changed_ms: c.now } }]);
};

const duplicate = (xs: readonly string[]) => xs.find((x, i) => xs.indexOf(x) !== i);

const installPlugin = (c: Extract<TenantCommand, { type: 'InstallPlugin' }>, s: TenantState): Decision => {
  if (!s.exists) return E.left(notFound('tenant'));
  const fnDup = duplicate(c.functions);
  if (fnDup !== undefined) return E.left(invalid('functions', `"${fnDup}" is listed twice`));
  const agentDup = duplicate(c.agents);
  if (agentDup !== undefined) return E.left(invalid('agents', `"${agentDup}" is listed twice`));
  if (c.startup !== undefined && !c.functions.includes(c.startup))
    return E.left(invalid('startup', 'must name one of the plugin\'s functions'));
  const previous = s.plugins[c.name];
  const scopes = c.scopes && c.scopes.length > 0 ? [...new Set(c.scopes)] : [...ALL_SCOPE_KINDS];
  return E.right([
    {
      type: 'PluginInstalled',
      data: {
        tenant: c.tenant,
        name: c.name,
        install_gen: (previous?.install_gen ?? 0) + 1,
        scopes,
        functions: [...c.functions],
        agents: [...c.agents],
        startup: c.startup ?? null,
        installed_ms: c.now,
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
      return decideRevocations(s, c.items, c.now);
    case 'IssueReceipt':
      return s.exists
        ? E.right([{ type: 'RevocationReceiptIssued', data: { tenant: c.tenant, epoch: c.epoch, receipt: c.receipt, issued_ms: c.now } }])
        : E.left(notFound('tenant'));
  }
};

export const tenantDecider: Decider<TenantCommand, TenantEvent, TenantState> = {
  initialState: initialTenantState,
  evolve: evolveTenant,
  decide: decideTenant,
};
