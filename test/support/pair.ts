import { startTestService, type TestService } from './service.ts';

/**
 * Two instances of the service on one database (B shares A's database and keys), with tenant
 * `acme` (with `settings`, if given) and its plugin `notes` (function `save`, agent `scribe`) made through A.
 */
export const startPair = async (settings?: Record<string, unknown>): Promise<{ a: TestService; b: TestService }> => {
  const a = await startTestService();
  const b = await startTestService({ shareWith: a });
  await a.admin('POST', '/v1/tenants', settings ? { id: 'acme', settings } : { id: 'acme' });
  await a.admin('POST', '/v1/tenants/acme/plugins', { name: 'notes', functions: ['save'], agents: ['scribe'] });
  return { a, b };
};

export const stopPair = async (pair: { a?: TestService | undefined; b?: TestService | undefined }) => {
  await pair.b?.stop();
  await pair.a?.stop();
};
