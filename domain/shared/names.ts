/** Identifier shapes shared by every aggregate; checked at the edge and again in the deciders. */
/** A tenant database's name (CUSTODIAN_DATABASES): what placements, metrics labels and `database` in the API say. */
export const DATABASE_NAME = /^[a-z][a-z0-9_-]{0,39}$/;

export const TENANT_ID = /^[a-z0-9][a-z0-9_-]{0,62}$/;
export const PLUGIN_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
export const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
export const FUNCTION_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,126}$/;
export const JOB_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** Named purposes (`routine:<id>`, `webhook:<flow>`, `eval:<id>` …); hashed inputs are 64 hex digits. */
export const NAMED_PURPOSE = /^[a-z][a-z0-9_-]{0,31}:[^\s]{1,200}$/;
export const HASHED_PURPOSE = /^[0-9a-f]{64}$/;

export const tenantStream = (tenant: string) => `tenant:${tenant}`;
export const jobStream = (tenant: string, job: string) => `job:${tenant}:${job}`;
/** The tenant a job stream belongs to (a tenant id holds no `:`). */
export const tenantOfJobStream = (stream: string) => stream.slice('job:'.length, stream.indexOf(':', 'job:'.length));
