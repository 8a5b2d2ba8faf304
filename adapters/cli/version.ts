import { readFileSync } from 'node:fs';

/** The version in the package.json beside this source, the one `custodian --version` prints. */
export const packageVersion = (): string => (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
