import { DATABASE_NAME } from '../../domain/shared/names.ts';

/** One tenant database named in CUSTODIAN_DATABASES. */
export interface TenantDatabase {
  readonly name: string;
  readonly url: string;
}

/**
 * Parses `CUSTODIAN_DATABASES=<name>=<postgres URL>,…`: empty or unset means none (the tenants
 * live in the control database). Throws a message that says what to change.
 */
export const parseDatabases = (text: string | undefined): TenantDatabase[] => {
  if (text === undefined || text.trim() === '') return [];
  // A URL may hold commas of its own (several hosts): split only before the next `<name>=`.
  const parts = text.split(/,(?=\s*[a-z][a-z0-9_-]*=)/);
  const out: TenantDatabase[] = [];
  for (const part of parts) {
    const eq = part.indexOf('=');
    const name = part.slice(0, eq).trim();
    const url = part.slice(eq + 1).trim();
    if (eq < 0 || !DATABASE_NAME.test(name))
      throw new Error(
        `CUSTODIAN_DATABASES: "${part.trim()}" is not <name>=<postgres URL> with a name of a-z, 0-9, _ and - (at most 40, starting with a letter)`,
      );
    if (!/^postgres(ql)?:\/\//.test(url)) throw new Error(`CUSTODIAN_DATABASES: the URL of ${name} must start with postgres:// or postgresql://`);
    if (out.some((d) => d.name === name)) throw new Error(`CUSTODIAN_DATABASES: ${name} is named twice; give each database one name`);
    out.push({ name, url });
  }
  return out;
};

/**
 * Connections one cell's pool may hold: the instance's budget (CUSTODIAN_DB_POOL_MAX, default 20)
 * shared across its tenant databases, and never under 4 (the group committer's batch, the
 * subscription's LISTEN, the runner and one request). So a database server sees at most
 * instances × max(4, ceil(budget / databases)) connections from Custodian, plus the control
 * database's 2 per instance, and adding databases does not multiply an instance's connections.
 */
export const cellPoolMax = (budget: number, databases: number): number => Math.max(4, Math.ceil(budget / Math.max(1, databases)));
