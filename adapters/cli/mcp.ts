import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { recordsMcpServer } from '../mcp/records-server.ts';
import { recordsClient } from '../../sdk/records.ts';
import { packageVersion } from './version.ts';

export interface McpOptions {
  readonly url?: string;
  readonly agentKey?: string;
}

/**
 * `custodian mcp --agent-key K`: the agent's records as MCP tools over stdio (SPEC §12). Stdout
 * carries MCP frames only, so everything said to a person goes to stderr.
 */
export const serveMcp = async (o: McpOptions) => {
  const key = o.agentKey ?? process.env.CUSTODIAN_AGENT_KEY ?? '';
  if (key === '') {
    process.stderr.write('custodian: not available here: give --agent-key (or CUSTODIAN_AGENT_KEY)\n');
    process.exitCode = 1;
    return;
  }
  const url = (o.url ?? process.env.CUSTODIAN_URL ?? `http://127.0.0.1:${process.env.PORT ?? 41873}`).replace(/\/$/, '');
  const server = recordsMcpServer(recordsClient(url, key, 'mcp'), packageVersion());
  await server.connect(new StdioServerTransport());
  process.stderr.write(`custodian: serving agent records from ${url} over MCP on stdio\n`);
};
