import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './free-port.ts';
import { goProgram } from './go-verifier.ts';

/** The witness network's software, pinned in test/support/omniwitness/go.mod (its `tool` line). */
export const OMNIWITNESS = 'github.com/transparency-dev/witness/cmd/omniwitness';

export interface WitnessBinaries {
  /** transparency-dev's omniwitness, at the version the module pins. */
  readonly omniwitness: string;
  /** test/support/omniwitness/main.go: witness keys made, and cosignatures verified, with golang.org/x/mod/sumdb/note. */
  readonly tool: string;
}

/**
 * Both programs built once per source version (main.go, go.mod, go.sum) into a temp
 * directory; null when `go` is not installed.
 */
export const witnessBinaries = (): WitnessBinaries | null => {
  const omniwitness = goProgram('omniwitness', OMNIWITNESS, 'omniwitness');
  const tool = goProgram('omniwitness', '.', 'witness-tool');
  return omniwitness && tool ? { omniwitness, tool } : null;
};

const run = (bin: string, args: readonly string[], stdin = ''): Promise<{ code: number; out: string; err: string }> =>
  new Promise((resolve) => {
    const child = execFile(bin, args, { encoding: 'utf8' }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, out: stdout, err: stderr }),
    );
    // A child that exits without reading its input (keygen reads none) closes the pipe first: that
    // EPIPE is not an outcome (the exit code and stderr are), and must not surface as an uncaught error.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(stdin);
  });

/** A witness key pair made by note.GenerateKey: the private key as omniwitness reads it, and its cosignature/v1 verifier key. */
export const witnessKey = async (b: WitnessBinaries, name: string) => {
  const r = await run(b.tool, ['keygen', name]);
  if (r.code !== 0) throw new Error(`witness-tool keygen: ${r.err}`);
  const [skey, vkey] = r.out.trim().split('\n') as [string, string];
  return { skey, vkey };
};

/** Verifies with golang.org/x/mod/sumdb/note that `vkey` cosigned the note: exit 0 and "verified <name> <origin> <size> <time>", or the reason. */
export const verifyCosigned = (b: WitnessBinaries, vkey: string, note: string) => run(b.tool, ['verify', vkey], note);

export interface RunningOmniwitness {
  readonly url: string;
  /** What it printed (klog), for a failure's message. */
  log(): string;
  stop(): Promise<void>;
}

/**
 * An omniwitness on 127.0.0.1 that knows one more log than its built-in list (`--additional_logs`:
 * the log's origin and its note verifier key), with its own SQLite file in a temp directory.
 * Answers once it takes requests; fails with its output if it exits first.
 */
export const startOmniwitness = async (
  b: WitnessBinaries,
  o: { skey: string; logs: readonly { origin: string; vkey: string }[]; port?: number },
): Promise<RunningOmniwitness> => {
  const dir = mkdtempSync(path.join(tmpdir(), 'custodian-omniwitness-'));
  const keyFile = path.join(dir, 'witness.key');
  writeFileSync(keyFile, `${o.skey}\n`, { mode: 0o600 });
  // The format omniwitness.NewStaticLogConfig reads (a YAML `Logs` list); JSON strings are YAML scalars.
  const logsFile = path.join(dir, 'logs.yaml');
  writeFileSync(logsFile, `Logs:\n${o.logs.map((l) => `  - Origin: ${JSON.stringify(l.origin)}\n    PublicKey: ${JSON.stringify(l.vkey)}\n`).join('')}`);
  const port = o.port ?? (await freePort());
  const child: ChildProcess = spawn(
    b.omniwitness,
    [
      `--listen=127.0.0.1:${port}`,
      '--metrics_listen=',
      `--private_key_path=${keyFile}`,
      `--db_file=${path.join(dir, 'witness.db')}`,
      `--additional_logs=${logsFile}`,
      '--logtostderr',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  // Up once add-checkpoint answers at all (a GET is 405: the route takes POST only).
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      await stop();
      throw new Error(`omniwitness exited before it took requests:\n${output}`);
    }
    const up = await fetch(`${url}/add-checkpoint`).then(
      () => true,
      () => false,
    );
    if (up) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, log: () => output, stop };
};
