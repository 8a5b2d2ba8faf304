import { toolScope } from '../jobs/scopes.ts';
import type { PluginLookup } from '../tenants/state.ts';
import { MAX_STARTUP_PLUGINS } from './assemble.ts';

export interface StartupTarget {
  readonly plugin: string;
  /** The function as a call names it: `fn` for the job's own plugin, `<plugin>/<fn>` for a granted one. */
  readonly function: string;
}

/** The plugin a grant reaches: `plugin:<p>`, or `tool:<p>/<fn>` / `agent:<p>/<a>` (any one of its functions or agents). */
const grantedPlugin = (grant: string): string | null => {
  if (grant.startsWith('plugin:')) return grant.slice('plugin:'.length);
  const m = /^(?:tool|agent):([^/]+)\//.exec(grant);
  return m ? m[1]! : null;
};

/** Whether the job's scopes name any function or agent of `plugin`: then it uses that plugin, and its start-up text is the job's to ask for. */
export const reachesPlugin = (scopes: readonly string[], plugin: string): boolean =>
  scopes.some((s) => s.startsWith(`tool:${plugin}/`) || s.startsWith(`agent:${plugin}/`));

/**
 * The plugins that add start-up text to a job (SPEC §4): its own plugin first, then the plugins
 * its plugin's grants reach, in grant order, each when it declares a start-up function and the
 * job's scopes still name one of its functions or agents; at most four. A `plugin:<p>` grant
 * reaches p, and so does a `tool:<p>/<fn>` grant of any one of p's functions.
 */
export const startupTargets = (
  job: { readonly plugin: string; readonly startup_function: string | null; readonly scopes: readonly string[] },
  grants: readonly string[],
  plugins: PluginLookup,
): StartupTarget[] => {
  const out: StartupTarget[] = [];
  if (job.startup_function !== null && job.scopes.includes(toolScope(job.plugin, job.startup_function)))
    out.push({ plugin: job.plugin, function: job.startup_function });
  for (const g of grants) {
    const name = grantedPlugin(g);
    if (name === null || name === job.plugin || out.some((t) => t.plugin === name)) continue;
    const p = plugins.get(name);
    if (!p || p.startup === null) continue;
    if (!reachesPlugin(job.scopes, name)) continue;
    out.push({ plugin: name, function: `${name}/${p.startup}` });
  }
  return out.slice(0, MAX_STARTUP_PLUGINS);
};

/** A plugin's start-up function (null: none, or not installed). */
export type StartupOf = (plugin: string) => string | null;

/**
 * Each installed plugin's start-up function, what a granted start-up mint is checked against:
 * a look-up of the one plugin a mint names, not a table of every plugin built per mint.
 */
export const startupFunctions =
  (plugins: PluginLookup): StartupOf =>
  (plugin) =>
    plugins.get(plugin)?.startup ?? null;
