import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { fitAsked } from '../../domain/collections/fit.ts';
import { RECORD_LIMITS } from '../../domain/collections/limits.ts';
import { CAP } from '../../clients/typescript/src/fit/bounds.ts';
import { VIEWS, type View } from '../../clients/typescript/src/fit/types.ts';
import { plainValue, type recordsClient } from '../../sdk/records.ts';

type Client = ReturnType<typeof recordsClient>;

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const collection = z.string().describe('a collection declared with records_declare');
const id = z.string().describe(`the record's id, 1 to ${RECORD_LIMITS.idMaxChars} characters`);

/** A tool's answer: its JSON as text, which every MCP client shows and a model reads. */
const answer = (value: unknown) => ({ content: [{ type: 'text' as const, text: JSON.stringify(value) }] });

/**
 * The agent's records (SPEC §12) as MCP tools, each one call of the agent records API through
 * `client`. A refusal thrown by the client (`records: <what>: <change>`) becomes the tool's
 * error result with that message, so the model reads what to change.
 */
export const recordsMcpServer = (client: Client, version: string) => {
  const server = new McpServer({ name: 'custodian-records', version });

  server.registerTool(
    'records_collections',
    { title: 'List collections', description: "The names of the agent's declared collections, in the order declared.", inputSchema: {} },
    async () => answer({ collections: await client.collections() }),
  );

  server.registerTool(
    'records_declare',
    {
      title: 'Declare collections',
      description:
        'Declares collections and the fields they are queried by: `people` fields name a person (forget finds them), `fields` any other string, number, boolean or null. ' +
        'Fields once declared stay declared; answers every collection name once the records already kept are indexed.',
      inputSchema: {
        collections: z.record(
          z.string(),
          z.strictObject({ people: z.array(z.string()).optional(), fields: z.array(z.string()).optional() }).describe('the top-level fields to query by'),
        ),
      },
    },
    async ({ collections }) => {
      await client.declare(Object.entries(collections).map(([name, c]) => ({ name, people: c.people ?? [], fields: c.fields ?? [] })));
      return answer({ collections: await client.collections() });
    },
  );

  server.registerTool(
    'records_put',
    {
      title: 'Put a record',
      description: `Keeps a JSON object under (collection, id), replacing the whole value of a record already there (its createdAt stays). At most ${RECORD_LIMITS.valueBytes} bytes as JSON.`,
      inputSchema: {
        collection,
        id,
        // Taken as sent and checked as the SDK checks a value: a schema that rebuilds the object would drop a `__proto__` key unseen.
        value: z.unknown().describe('a plain JSON object'),
        started_ms: z.number().int().nonnegative().optional().describe('when the tool run that produced the value started (ms since 1970)'),
      },
    },
    async (a) => {
      const value = plainValue(a.value);
      if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('records: value is not a JSON object: put a plain object');
      return answer(await client.put(a.collection, a.id, value, a.started_ms ?? null));
    },
  );

  server.registerTool(
    'records_get',
    { title: 'Get a record', description: 'The value kept under (collection, id), or null when there is none.', inputSchema: { collection, id } },
    async (a) => answer(await client.get(a.collection, a.id)),
  );

  server.registerTool(
    'records_query',
    {
      title: 'Query records',
      description:
        `Records of a collection whose declared fields equal every pair of \`where\`, oldest first; at most \`limit\` (default ${RECORD_LIMITS.queryDefault}, at most ${RECORD_LIMITS.queryMax}); for the next page pass the last entry's createdAt and id as \`after\`. ` +
        'Give `budget` (tokens) to get only as many whole records as fit, with a `fit` note, `more` and `next` (pass it as `after`); `view` "summary" or "stub" shrinks each record, `query` names the top-level keys to keep ("status, question").',
      inputSchema: {
        collection,
        where: z.record(z.string(), scalar).optional(),
        limit: z.number().int().optional(),
        after: z
          .object({ createdAt: z.number(), id: z.string() })
          .optional()
          .describe("the previous page's last entry, or its next: only createdAt and id are read"),
        view: z.enum(VIEWS as [View, ...View[]]).optional(),
        budget: z.number().int().min(0).optional().describe(`tokens; a budget above ${CAP} is read as ${CAP}`),
        query: z.string().max(1_000).optional(),
      },
    },
    async (a) => {
      const page = { ...(a.limit === undefined ? {} : { limit: a.limit }), ...(a.after ? { after: { createdAt: a.after.createdAt, id: a.after.id } } : {}) };
      const ask = {
        ...(a.view === undefined ? {} : { view: a.view }),
        ...(a.budget === undefined ? {} : { budget: Math.min(a.budget, CAP) }),
        ...(a.query ? { query: a.query } : {}),
      };
      if (fitAsked(ask)) return answer(await client.queryFitted(a.collection, a.where ?? {}, page, ask));
      return answer({ entries: await client.query(a.collection, a.where ?? {}, page) });
    },
  );

  server.registerTool(
    'records_delete',
    { title: 'Delete a record', description: 'Deletes the record under (collection, id); answers whether there was one.', inputSchema: { collection, id } },
    async (a) => answer({ deleted: await client.delete(a.collection, a.id) }),
  );

  server.registerTool(
    'records_forget',
    {
      title: 'Forget a person',
      description:
        'Deletes every record naming the person (or a name in `also`) in a people field, in every collection, and shreds their keys; `phone:+1555…` and `+1555…` are the same person. Answers how many were deleted.',
      inputSchema: { person: z.string().min(1), also: z.array(z.string().min(1)).optional() },
    },
    async (a) => answer({ deleted: await client.forget(a.person, a.also ?? []) }),
  );

  return server;
};
