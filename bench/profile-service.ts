import pg from 'pg';
import { startService } from '../adapters/service.ts';
import { newServiceKeys } from './api.ts';

// The service alone in this process (for `node --cpu-prof`): `bench/profile-put.ts` drives it from another.
const keys = newServiceKeys();
const svc = await startService({ databaseUrl: process.argv[2]!, adminKey: 'bench-admin-key', masterKey: keys.masterKey, auditKey: keys.auditKey, port: 0 });
let start = process.cpuUsage();
// Statements sent to PostgreSQL after 'mark', by their first words (each is at least one socket write).
const sent = new Map<string, number>();
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const first = args[0] as string | { text?: string; name?: string } | undefined;
  const text = typeof first === 'string' ? first : (first?.text ?? first?.name ?? '?');
  // Only the text's start is read: collapsing every statement whole (up to 2.6 kB) cost a few
  // microseconds a put, counted here as the service's own CPU.
  const key = text.slice(0, 240).replace(/\s+/g, ' ').slice(0, 60);
  sent.set(key, (sent.get(key) ?? 0) + 1);
  return (query as (...a: unknown[]) => unknown).apply(this, args);
} as typeof pg.Client.prototype.query;
process.on('message', (m) => {
  if (m === 'mark') {
    // PROFILE_NO_RUNNER=1: the asynchronous projections stop once the tickets are minted, to see what they add to a put's tail.
    if (process.env.PROFILE_NO_RUNNER) void svc.runner.stop();
    start = process.cpuUsage();
    sent.clear();
  }
  if (m === 'stop') {
    const used = process.cpuUsage(start);
    process.send!(
      { cpuMs: (used.user + used.system) / 1000, systemMs: used.system / 1000, statements: [...sent].sort((a, b) => b[1] - a[1]) },
      () => void svc.close().then(() => process.exit(0)),
    );
  }
});
process.send!({ url: svc.url });
