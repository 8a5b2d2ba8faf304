import { fork } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A bench child process (`--import tsx`) driven over IPC: each `call({ op, … })` gets the
 * child's `{ id, value }` or `{ id, error }`. The children (`bench/service-process.ts`,
 * `bench/baseline-service.ts`) run a service alone, so that the clients in the bench's process
 * do not take its CPU.
 */
export interface Child {
  call<T>(m: Record<string, unknown>): Promise<T>;
  /** Waits up to 10 s for the child to leave (after its `close`), then kills it. */
  stopped(what: string): Promise<void>;
  kill(): Promise<void>;
  readonly exited: () => string | null;
}

export const forkChild = (file: string): Child => {
  const child = fork(file, [], { execArgv: ['--import', 'tsx'] });
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 0;
  let exited: string | null = null;
  child.on('message', (m: { id: number; value?: unknown; error?: string }) => {
    const p = pending.get(m.id);
    pending.delete(m.id);
    if (m.error !== undefined) p?.reject(new Error(`service process: ${m.error}`));
    else p?.resolve(m.value);
  });
  const exit = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exited = `exited (${signal ?? code})`;
      for (const p of pending.values()) p.reject(new Error(`service process ${exited}`));
      pending.clear();
      resolve();
    }),
  );
  return {
    call: <T>(m: Record<string, unknown>) =>
      new Promise<T>((resolve, reject) => {
        if (exited) return reject(new Error(`service process ${exited}`));
        const id = nextId++;
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        child.send({ id, ...m });
      }),
    async stopped(what) {
      // The child leaves once its service is closed; one that lingers is ended here.
      if ((await Promise.race([exit.then(() => true), sleep(10_000).then(() => false)])) === false) {
        console.log(`  !! the ${what} process did not exit 10 s after closing: killed`);
        child.kill('SIGKILL');
        await exit;
      }
    },
    async kill() {
      child.kill('SIGKILL');
      await exit;
    },
    exited: () => exited,
  };
};

/** The child's side: answers each `{ id, op }` message with `handle`'s value or error. */
export const serveParent = (handle: (m: { id: number; op: string } & Record<string, unknown>) => Promise<unknown>) => {
  process.on('message', (m: { id: number; op: string } & Record<string, unknown>) => {
    handle(m).then(
      (value) => process.send!({ id: m.id, value }, () => m.op === 'close' && process.disconnect()),
      (error: unknown) => process.send!({ id: m.id, error: error instanceof Error ? error.message : String(error) }),
    );
  });
};

/** This process's CPU time so far, ms (user + system). */
export const ownCpuMs = () => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};
