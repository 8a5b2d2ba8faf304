import type { Sql } from '../domain/ports/read-model.ts';

/**
 * The ids and createdAt of an agent's records in `collection` whose indexed fields hold every
 * (field, digest) of `wanted`, oldest first by createdAt then id, after `after`: the agent
 * query of SPEC §12 answered from the field index read model, digests in, ids out.
 */
export const queryAgentIndex = async (
  sql: Sql,
  at: { tenant: string; agent: string; collection: string },
  wanted: readonly { field: string; digest: string }[],
  page: { limit: number; after?: { createdAt: number; id: string } },
): Promise<{ id: string; createdAt: number }[]> => {
  const { rows } = await sql.query<{ id: string; created_ms: string }>(
    `SELECT r.id, r.created_ms FROM rm_agent_records r
     WHERE r.tenant = $1 AND r.agent = $2 AND r.collection = $3
       AND cardinality($4::text[]) = (
         SELECT count(*) FROM rm_agent_index i JOIN unnest($4::text[], $5::text[]) AS w(field, digest) ON i.field = w.field AND i.digest = w.digest
         WHERE i.tenant = r.tenant AND i.agent = r.agent AND i.collection = r.collection AND i.id = r.id)
       AND ($6::bigint IS NULL OR (r.created_ms, r.id COLLATE "C") > ($6::bigint, $7::text COLLATE "C"))
     ORDER BY r.created_ms, r.id COLLATE "C"
     LIMIT $8`,
    [
      at.tenant,
      at.agent,
      at.collection,
      wanted.map((w) => w.field),
      wanted.map((w) => w.digest),
      page.after?.createdAt ?? null,
      page.after?.id ?? null,
      page.limit,
    ],
  );
  return rows.map((r) => ({ id: r.id, createdAt: Number(r.created_ms) }));
};
