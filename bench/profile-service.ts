import { startService } from '../adapters/service.ts';
import { newServiceKeys } from './api.ts';

// The service alone in this process (for `node --cpu-prof`): `bench/profile-put.ts` drives it from another.
const keys = newServiceKeys();
const svc = await startService({ databaseUrl: process.argv[2]!, adminKey: 'bench-admin-key', masterKey: keys.masterKey, auditKey: keys.auditKey, port: 0 });
let start = process.cpuUsage();
process.on('message', (m) => {
  if (m === 'mark') {
    // PROFILE_NO_RUNNER=1: the asynchronous projections stop once the tickets are minted, to see what they add to a put's tail.
    if (process.env.PROFILE_NO_RUNNER) void svc.runner.stop();
    start = process.cpuUsage();
  }
  if (m === 'stop') {
    const used = process.cpuUsage(start);
    process.send!({ cpuMs: (used.user + used.system) / 1000 }, () => void svc.close().then(() => process.exit(0)));
  }
});
process.send!({ url: svc.url });
