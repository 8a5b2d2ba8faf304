import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CLIENTS_VENV } from './clients-venv.ts';

// The Python and Go the client tests run with. The run's global setup makes a virtual environment
// with the test dependencies (pytest, mcp, and the OpenAPI checkers openapi-spec-validator and
// schemathesis) at node_modules/.cache/clients-venv (clients-venv.ts); CUSTODIAN_PYTHON names another.

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CLIENTS_PYTHON = `${ROOT}clients/python`;
export const CLIENTS_GO = `${ROOT}clients/go`;
const VENV = `${CLIENTS_VENV}/bin/python`;

export const python = (): string => process.env.CUSTODIAN_PYTHON ?? (existsSync(VENV) ? VENV : 'python3');

/** What each Python probe imports: the clients' test dependencies, and the OpenAPI document's checkers. */
const PROBES = {
  python: 'import sys; assert sys.version_info >= (3, 10)',
  mcp: 'import mcp, pytest',
  'openapi-spec-validator': 'import openapi_spec_validator',
  schemathesis: 'import schemathesis',
} as const;

/** Why the client tests cannot run here (a missing tool), or null when they can. Under CI nothing may be missing. */
export const missing = (what: keyof typeof PROBES | 'go'): string | null => {
  const probe = what === 'go' ? spawnSync('go', ['version'], { encoding: 'utf8' }) : spawnSync(python(), ['-c', PROBES[what]], { encoding: 'utf8' });
  const why = probe.status === 0 ? null : `${what} is not available (${(probe.stderr || String(probe.error ?? '')).trim().split('\n').pop()})`;
  if (why && process.env.CI === 'true') throw new Error(`${why}: the tests' global setup makes it (python) and .ci/run installs it (go)`);
  return why;
};
