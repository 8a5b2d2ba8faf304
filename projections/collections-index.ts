import type { Sql } from '../domain/ports/read-model.ts';
import type { Projection } from './projection.ts';

type Where = { tenant: string; agent: string; collection: string; id: string };
const keyOf = (d: Where) => [d.tenant, d.agent, d.collection, d.id];

const forget = (sql: Sql, records: readonly Where[]) =>
  records.length === 0
    ? Promise.resolve()
    : Promise.all(
        ['rm_agent_index', 'rm_agent_records'].map((table) =>
          sql.query(
            `DELETE FROM ${table} r USING unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS d(tenant, agent, collection, id)
             WHERE r.tenant = d.tenant AND r.agent = d.agent AND r.collection = d.collection AND r.id = d.id`,
            [0, 1, 2, 3].map((i) => records.map((r) => keyOf(r)[i])),
          ),
        ),
      ).then(() => undefined);

const index = (sql: Sql, at: Omit<Where, 'id'>, rows: readonly { id: string; field: string; digest: string }[]) =>
  rows.length === 0
    ? Promise.resolve()
    : sql
        .query(
          `INSERT INTO rm_agent_index (tenant, agent, collection, id, field, digest)
           SELECT $1, $2, $3, id, field, digest FROM unnest($4::text[], $5::text[], $6::text[]) AS x(id, field, digest)
           ON CONFLICT (tenant, agent, collection, id, field) DO UPDATE SET digest = EXCLUDED.digest`,
          [at.tenant, at.agent, at.collection, rows.map((r) => r.id), rows.map((r) => r.field), rows.map((r) => r.digest)],
        )
        .then(() => undefined);

/**
 * The agent records' field index (SPEC §12) as a read model: each kept record's id and
 * createdAt, and the keyed digest (HMAC-SHA-256 under the tenant key) of each declared value,
 * never a value. Built from the agent's own stream, so any order that keeps each stream's
 * order builds the same rows. Queries are answered from the folded stream (read-your-writes
 * under the stream's lock); this model serves what reads a settled index from SQL
 * (`queries/collections-index.ts`).
 */
export const collectionsIndexProjection: Projection = {
  name: 'agent-index',
  order: 'stream',
  canHandle: ['AgentRecordPut', 'AgentRecordDeleted', 'AgentPersonForgotten', 'AgentCollectionsDeclared'],
  tables: ['rm_agent_index', 'rm_agent_records'],
  async apply(sql, event) {
    switch (event.type) {
      case 'AgentRecordPut': {
        const d = event.data;
        // A put replaces the whole value: the fields it no longer holds leave the index.
        await forget(sql, [d]);
        await sql.query('INSERT INTO rm_agent_records (tenant, agent, collection, id, created_ms) VALUES ($1, $2, $3, $4, $5)', [...keyOf(d), d.created_ms]);
        await index(
          sql,
          d,
          d.index.map((e) => ({ id: d.id, field: e.field, digest: e.digest })),
        );
        return;
      }
      case 'AgentRecordDeleted':
        return forget(sql, [event.data]);
      case 'AgentPersonForgotten': {
        const d = event.data;
        return forget(
          sql,
          d.records.map((r) => ({ tenant: d.tenant, agent: d.agent, collection: r.collection, id: r.id })),
        );
      }
      case 'AgentCollectionsDeclared': {
        const d = event.data;
        for (const r of d.indexed)
          await index(
            sql,
            { tenant: d.tenant, agent: d.agent, collection: r.collection },
            r.index.map((e) => ({ id: r.id, field: e.field, digest: e.digest })),
          );
        return;
      }
    }
  },
};
