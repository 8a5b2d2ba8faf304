import { createPrivateKey } from 'node:crypto';
import { startService, type Service } from '../adapters/service.ts';
import { ADMIN } from './api.ts';
import { ownCpuMs, serveParent } from './child-ipc.ts';
import { forcePoolFlush } from './pgstats.ts';
import { serviceErrors } from './service-errors.ts';

/**
 * The service alone in a child process, as a deployment runs it, so that the bench's clients
 * (in the parent, `bench/remote-service.ts`) do not take its CPU. Driven over IPC: the keys
 * come in a message, not on the command line; each request `{ id, op }` gets `{ id, value }`
 * or `{ id, error }`.
 */
type Request =
  | { id: number; op: 'start'; databaseUrl: string; masterKey: string; auditKey: string }
  | { id: number; op: 'flush' }
  | { id: number; op: 'cpu' }
  | { id: number; op: 'close' };

let svc: Service | null = null;
let errors: ReturnType<typeof serviceErrors> | null = null;

const handle = async (m: Request): Promise<unknown> => {
  switch (m.op) {
    case 'start': {
      errors = serviceErrors(new URL(m.databaseUrl).pathname.slice(1));
      svc = await startService({
        databaseUrl: m.databaseUrl,
        adminKey: ADMIN,
        masterKey: Buffer.from(m.masterKey, 'base64'),
        auditKey: createPrivateKey(m.auditKey),
        port: 0,
        logger: errors.logger,
      });
      return svc.url;
    }
    case 'flush':
      if (svc) await forcePoolFlush(svc.pool);
      return null;
    case 'cpu':
      return ownCpuMs();
    case 'close':
      await svc?.close();
      errors?.summary();
      svc = null;
      return null;
  }
};

serveParent((m) => handle(m as unknown as Request));
