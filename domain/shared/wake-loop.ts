import { wakeablePause } from './wakeable-pause.ts';

export interface WakeLoop {
  start(): void;
  /** Cuts the current pause short. */
  wake(): void;
  /** Ends the loop after the step in progress. */
  stop(): Promise<void>;
}

/**
 * A background loop that runs `step` again at once when `listen` signals news (an append)
 * while it ran, and otherwise pauses for what `step` answers. `force` pauses even when
 * signalled: a step that failed backs off rather than hammering what is away.
 */
export const wakeLoop = (listen: (signal: () => void) => () => void, step: () => Promise<{ readonly pauseMs: number; readonly force?: boolean }>): WakeLoop => {
  const sleeper = wakeablePause();
  let running = false;
  let signalled = false;
  let loop: Promise<void> | null = null;
  let off: (() => void) | null = null;
  return {
    start() {
      if (running) return;
      running = true;
      off = listen(() => {
        signalled = true;
        sleeper.wake();
      });
      loop = (async () => {
        while (running) {
          signalled = false;
          const { pauseMs, force = false } = await step();
          if (running && (force || !signalled)) await sleeper.pause(pauseMs);
        }
      })();
    },
    wake: () => sleeper.wake(),
    async stop() {
      running = false;
      off?.();
      sleeper.wake();
      await loop;
    },
  };
};
