import { toolScope } from '../jobs/scopes.ts';
import type { PluginInstall } from '../tenants/state.ts';
import { MAX_STARTUP_PLUGINS } from './assemble.ts';

export interface StartupTarget {
  readonly plugin: string;
  /** The function as a call names it: `fn` for the job's own plugin, `<plugin>/<fn>` for a granted one. */
  readonly function: string;
}

/**
 * The plugins that add start-up text to a job (SPEC §4): its own plugin first, then the plugins
 * its plugin's grants reach, in grant order, each only when it declares a start-up function the
 * job's scopes reach; at most four. A `plugin:<p>` grant reaches p; a `tool:<p>/<fn>` grant
 * reaches p only when fn is p's start-up function.
 */
export const startupTargets = (
  job: { readonly plugin: string; readonly startup_function: string | null; readonly scopes: readonly string[] },
  grants: readonly string[],
  plugins: Readonly<Record<string, PluginInstall>>,
): StartupTarget[] => {
  const out: StartupTarget[] = [];
  if (job.startup_function !== null && job.scopes.includes(toolScope(job.plugin, job.startup_function)))
    out.push({ plugin: job.plugin, function: job.startup_function });
  for (const g of grants) {
    const name = g.startsWith('plugin:') ? g.slice('plugin:'.length) : g.startsWith('tool:') ? g.slice('tool:'.length).split('/')[0]! : null;
    if (name === null || name === job.plugin || out.some((t) => t.plugin === name)) continue;
    const p = Object.hasOwn(plugins, name) ? plugins[name] : undefined;
    if (!p || p.startup === null) continue;
    if (g.startsWith('tool:') && g !== toolScope(name, p.startup)) continue;
    if (!job.scopes.includes(toolScope(name, p.startup))) continue;
    out.push({ plugin: name, function: `${name}/${p.startup}` });
  }
  return out.slice(0, MAX_STARTUP_PLUGINS);
};

/** Each installed plugin's start-up function: what a granted start-up mint is checked against. */
export const startupFunctions = (plugins: Readonly<Record<string, PluginInstall>>): Record<string, string | null> =>
  Object.fromEntries(Object.values(plugins).map((p) => [p.name, p.startup]));
