import type { PluginInstall, PluginLookup } from '../tenants/state.ts';

export const pluginScope = (plugin: string) => `plugin:${plugin}`;
export const toolScope = (plugin: string, fn: string) => `tool:${plugin}/${fn}`;
export const agentScope = (plugin: string, agent: string) => `agent:${plugin}/${agent}`;

const ownScopes = (p: PluginInstall): string[] => [
  pluginScope(p.name),
  ...p.functions.map((f) => toolScope(p.name, f)),
  ...p.agents.map((a) => agentScope(p.name, a)),
];

/**
 * SPEC §3: a job's block-0 scopes are its plugin's own (the plugin, its functions as tools,
 * its agents) plus the plugin's grants at the start. A `plugin:<name>` grant reaches that
 * plugin's tools and agents as installed at the start.
 */
export const startScopes = (plugin: PluginInstall, grants: readonly string[], plugins: PluginLookup): string[] => {
  const scopes = new Set(ownScopes(plugin));
  for (const g of grants) {
    scopes.add(g);
    const granted = g.startsWith('plugin:') ? plugins.get(g.slice('plugin:'.length)) : undefined;
    if (granted) ownScopes(granted).forEach((s) => scopes.add(s));
  }
  return [...scopes].sort();
};

/** A call names `fn` (the job's own plugin) or `<plugin>/<fn>`. */
export const callScope = (jobPlugin: string, fn: string): string => (fn.includes('/') ? `tool:${fn}` : toolScope(jobPlugin, fn));
