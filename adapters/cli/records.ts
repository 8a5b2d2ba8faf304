import { client, type ClientOptions } from './client.ts';

/**
 * `custodian records export --tenant t --agent a`: an agent's records as JSON Lines on stdout,
 * oldest first, and `Exported N records.` on stderr. Exit 1 when the service answers a refusal
 * or cannot be reached (a usage error is commander's, also 1).
 */
export const exportAgentRecords = async (o: ClientOptions & { tenant: string; agent: string }) => {
  let text: string | null;
  try {
    text = await client(o)('GET', `/v1/tenants/${encodeURIComponent(o.tenant)}/agents/${encodeURIComponent(o.agent)}/records/export`);
  } catch (error) {
    process.stderr.write(`custodian: the service could not be reached: ${(error as Error).message}; start it (npm start) or give --url\n`);
    process.exitCode = 1;
    return;
  }
  if (text === null) return;
  process.stdout.write(text);
  const n = text.split('\n').filter((l) => l !== '').length;
  process.stderr.write(`Exported ${n} record${n === 1 ? '' : 's'}.\n`);
};
