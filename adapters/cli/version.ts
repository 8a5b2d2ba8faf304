import { readFileSync } from 'node:fs';
import { packageRoot } from '../package-root.ts';

/** The version in the package's package.json, the one `custodian --version` prints. */
export const packageVersion = (): string => (JSON.parse(readFileSync(new URL('package.json', packageRoot), 'utf8')) as { version: string }).version;
