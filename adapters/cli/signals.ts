import type { Logger } from 'pino';

/**
 * Runs `stop` once on the first SIGINT, SIGTERM or SIGHUP, then exits 0, or 1 when stopping
 * failed: a long-running command stops cleanly however its supervisor asks.
 */
export const stopOnSignal = (logger: Logger, stop: () => Promise<void>) => {
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal }, 'stopping');
      stop().then(
        () => process.exit(0),
        (error) => {
          logger.error({ err: error }, 'unclean stop');
          process.exit(1);
        },
      );
    });
};
