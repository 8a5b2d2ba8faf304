import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SUPPORT = path.dirname(fileURLToPath(import.meta.url));

/** Whether `go` is installed (the tests that need it say so in one line and skip without it). */
export const goAvailable = () => {
  try {
    execFileSync('go', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

/**
 * A Go program of test/support (its own pinned module, `name`) built once per source version
 * into a temp directory; null when `go` is not installed. `pkg` builds another package the
 * module pins (a `tool` line) as the binary `bin`.
 */
export const goProgram = (name: string, pkg = '.', bin = name): string | null => {
  if (!goAvailable()) return null;
  const module = path.join(SUPPORT, name);
  const digest = createHash('sha256');
  for (const f of ['main.go', 'go.mod', 'go.sum']) digest.update(readFileSync(path.join(module, f)));
  const dir = path.join(tmpdir(), `custodian-${name}-${digest.digest('hex').slice(0, 16)}`);
  const file = path.join(dir, bin);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    // Built beside it and renamed: a build cut short never leaves a broken binary behind.
    const partial = `${file}.${process.pid}`;
    execFileSync('go', ['build', '-o', partial, pkg], { cwd: module, stdio: 'pipe', timeout: 600_000 });
    renameSync(partial, file);
  }
  return file;
};

/** The Go verifier (test/support/go-verifier: golang.org/x/mod/sumdb/note and sumdb/tlog). */
export const goVerifier = (): string | null => goProgram('go-verifier');

/** Runs the Go verifier on its JSON input: its exit code and the lines it printed. */
export const runGoVerifier = (bin: string, input: unknown): Promise<{ code: number; out: string }> =>
  new Promise((resolve) => {
    const child = execFile(bin, [], { encoding: 'utf8' }, (error, stdout) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, out: stdout }),
    );
    // A verifier that exits before reading all of it closes the pipe: its exit code says why, not the EPIPE.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(JSON.stringify(input));
  });
