import { client, type ClientOptions } from './client.ts';

/**
 * `custodian records export --tenant t --agent a`: an agent's records as JSON Lines on stdout,
 * oldest first, and `Exported N records.` on stderr. Exit 1 when the service answers a refusal
 * or cannot be reached (one line on stderr, from the client), or on a usage error (commander's).
 */
export const exportAgentRecords = async (o: ClientOptions & { tenant: string; agent: string }) => {
  const text = await client(o)('GET', `/v1/tenants/${encodeURIComponent(o.tenant)}/agents/${encodeURIComponent(o.agent)}/records/export`);
  process.stdout.write(text);
  const n = text.split('\n').filter((l) => l !== '').length;
  process.stderr.write(`Exported ${n} record${n === 1 ? '' : 's'}.\n`);
};
