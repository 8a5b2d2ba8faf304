import type { Chain } from './block.ts';

/**
 * A revocation as the reach rule sees it, after the batch it came in was applied: a narrowed
 * grant arrives here only if the grantee no longer gets the scope by any path, a person only
 * if the batch closed their last path to start jobs.
 */
export type Revocation =
  | { readonly kind: 'kill_agent'; readonly agent: string }
  | { readonly kind: 'grant_narrowed'; readonly grantee: string; readonly scope: string }
  | { readonly kind: 'plugin_removed'; readonly plugin: string }
  | { readonly kind: 'api_key_revoked'; readonly key: string }
  | { readonly kind: 'person_revoked'; readonly person: string };

const scopePlugin = (scope: string): string | null => {
  const m = /^(?:plugin:([^/]+)|tool:([^/]+)\/|agent:([^/]+)\/)/.exec(scope);
  return m ? (m[1] ?? m[2] ?? m[3] ?? null) : null;
};

/**
 * The one rule (SPEC §6): does this revocation reach the job whose envelope chain this is?
 * A killed agent anywhere in the chain; a scope its grantee held in the chain and lost; a
 * removed plugin any block ran as or reached into; the API key or the person the tree runs for.
 */
export const reaches = (r: Revocation, chain: Chain): boolean => {
  const blocks = chain.map((b) => b.block);
  switch (r.kind) {
    case 'kill_agent':
      return blocks.some((b) => `${b.plugin}/${b.agent}` === r.agent);
    case 'grant_narrowed':
      return blocks.some((b) => b.plugin === r.grantee && b.scopes.includes(r.scope));
    case 'plugin_removed':
      return blocks.some((b) => b.plugin === r.plugin || b.scopes.some((s) => scopePlugin(s) === r.plugin));
    case 'api_key_revoked':
      return blocks.some((b) => b.subject === `apikey:${r.key}`);
    case 'person_revoked':
      return blocks.some((b) => b.subject === r.person);
  }
};
