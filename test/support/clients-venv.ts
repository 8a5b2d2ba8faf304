import { execFile } from 'node:child_process';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
/** Where the Python client suites' virtual environment lives (test/support/python.ts runs its python). */
export const CLIENTS_VENV = path.join(ROOT, 'node_modules/.cache/clients-venv');
const REQUIREMENTS = path.join(ROOT, 'clients/python/requirements-test.txt');
/** The requirements the environment was made from: a changed file makes it again. */
const STAMP = 'requirements-test.txt';

/**
 * Makes the virtual environment the Python client suites run in (pytest and mcp from
 * clients/python/requirements-test.txt), once: it is kept while the requirements are unchanged.
 * It is built beside its place and renamed into it, so two runs at once never share a half-made
 * one. Without python3, venv or the package index it says so in one line and the Python suites
 * skip (under CI they fail instead). CUSTODIAN_PYTHON, when set, is used as it is.
 */
export const ensureClientsVenv = async (): Promise<void> => {
  if (process.env.CUSTODIAN_PYTHON) return;
  const wanted = readFileSync(REQUIREMENTS, 'utf8');
  const stamp = path.join(CLIENTS_VENV, STAMP);
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === wanted) return;
  const building = `${CLIENTS_VENV}.${process.pid}`;
  try {
    await run('python3', ['-m', 'venv', building], { timeout: 120_000 });
    const python = path.join(building, 'bin/python');
    await run(python, ['-m', 'pip', 'install', '-q', '--disable-pip-version-check', '-r', REQUIREMENTS], { timeout: 600_000 });
    writeFileSync(path.join(building, STAMP), wanted);
    rmSync(CLIENTS_VENV, { recursive: true, force: true });
    renameSync(building, CLIENTS_VENV);
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    // Another run may have finished it meanwhile.
    if (existsSync(stamp) && readFileSync(stamp, 'utf8') === wanted) return;
    const why = String((error as { stderr?: string }).stderr || (error as Error).message)
      .trim()
      .split('\n')
      .pop();
    const line = `custodian tests: the Python client suites' environment could not be made in ${CLIENTS_VENV} (${why}); they skip`;
    if (process.env.CI === 'true') throw new Error(line, { cause: error });
    process.stderr.write(`${line}\n`);
  }
};
