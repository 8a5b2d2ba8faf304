import type { DomainEvent } from '../domain/events/registry.ts';
import type { Sql } from '../domain/ports/read-model.ts';

/**
 * One data-modifying statement with no WITH of its own, naming its parameters `$1` … `$n`
 * (`params`, in order) and no other `$`. Fragments of models that own disjoint tables are sent
 * as one statement (`fused`), each a data-modifying CTE: one round trip for them all.
 */
export interface Fragment {
  readonly text: string;
  readonly params: readonly unknown[];
  /**
   * CTEs the text reads (`name AS (…)`, in order, with the same `$n`), named after the model's
   * own tables so no two fragments' names meet.
   */
  readonly ctes?: readonly string[];
}

/**
 * An event an inline model writes in its commit's own statement, with its unit's 1-based place
 * in the batch. The statement's `committed` CTE (one column, `unit`) names the units that
 * committed: a model writes only their events, and — since the CTEs of one statement do not
 * see each other's writes — says in SQL what one event after another would have left.
 */
export interface UnitEvent {
  readonly unit: number;
  readonly event: DomainEvent;
}

/** What leads the fused statement: CTEs every fragment may read (`committed`), their parameters, and what it answers. */
export interface Lead {
  readonly ctes: readonly string[];
  readonly params: readonly unknown[];
  readonly select: string;
}

/** The lead of a statement whose events all stand (a rebuild, the runner, a tenant's copy): every event is unit 1, committed. */
export const EVERY_EVENT: Lead = { ctes: ['committed AS (SELECT 1 AS unit)'], params: [], select: 'SELECT 1' };

/** The events as unit 1 of `EVERY_EVENT`. */
export const asOneUnit = (events: readonly { readonly event: DomainEvent }[]): UnitEvent[] => events.map(({ event }) => ({ unit: 1, event }));

/** SQL: rows `a` and `b` are of the same record (tenant, plugin, scope, key). */
export const sameRecord = (a: string, b: string) =>
  `${a}.tenant = ${b}.tenant AND ${a}.plugin = ${b}.plugin AND ${a}.scope = ${b}.scope AND ${a}.key = ${b}.key`;

/** The fragments as one statement after the lead's CTEs, each its own CTE, their parameters numbered on. */
export const fused = (fragments: readonly Fragment[], lead: Lead = { ctes: [], params: [], select: 'SELECT 1' }): { text: string; params: unknown[] } => {
  let offset = lead.params.length;
  const ctes = fragments.flatMap((f, i) => {
    const at = offset;
    const numbered = (text: string) =>
      text.replace(/\$(\d+)/g, (_, n: string) => {
        if (Number(n) > f.params.length) throw new Error(`a fragment names $${n} beyond its ${f.params.length} parameters`);
        return `$${Number(n) + at}`;
      });
    offset += f.params.length;
    return [...(f.ctes ?? []).map(numbered), `f${i} AS (${numbered(f.text)})`];
  });
  return { text: `WITH ${[...lead.ctes, ...ctes].join(',\n  ')}\n${lead.select}`, params: [...lead.params, ...fragments.flatMap((f) => f.params)] };
};

/** The fragments applied as one statement in which every event stands: how the runner and a rebuild write an inline model. */
export const applyFragments = async (sql: Sql, fragments: readonly Fragment[]): Promise<void> => {
  if (fragments.length === 0) return;
  const { text, params } = fused(fragments, EVERY_EVENT);
  await sql.query(text, params);
};
