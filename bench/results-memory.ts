// RSS of the service before, at its peak and after 20 concurrent 30 MiB results on one ticket.
// Run: DATABASE_URL=postgres://… node --expose-gc --import tsx bench/results-memory.ts
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { startService } from '../adapters/service.ts';
import { newAuditKey } from '../adapters/keys/audit-key.ts';

const MiB = 1 << 20;
const CONCURRENT = Number(process.env.RESULTS_CONCURRENT ?? 20);
const SIZE = Number(process.env.RESULTS_MIB ?? 30) * MiB;
const rss = () => Math.round(process.memoryUsage().rss / MiB);
const gc = () => (globalThis as { gc?: () => void }).gc?.();

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('set DATABASE_URL to a PostgreSQL database the bench may write to');
const adminKey = randomBytes(16).toString('hex');
const svc = await startService({ databaseUrl, adminKey, masterKey: randomBytes(32), auditKey: newAuditKey(), port: 0 });
const admin = (method: string, path: string, body: unknown) =>
  fetch(`${svc.url}${path}`, { method, headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(
    async (r) => (await r.json()) as { _meta: Record<string, { ticket: string }> },
  );
try {
  const t = `bench-${randomBytes(4).toString('hex')}`;
  await admin('POST', '/v1/tenants', { id: t });
  await admin('POST', `/v1/tenants/${t}/plugins`, { name: 'notes', functions: ['save'], agents: ['scribe'] });
  await admin('POST', `/v1/tenants/${t}/jobs`, { id: 'j', agent: 'scribe', plugin: 'notes', subject: 's', input: 'bench' });
  const ticket = (await admin('POST', `/v1/tenants/${t}/jobs/j/calls`, { function: 'save' }))._meta['oz0/records']!.ticket;
  // Four distinct contents, as the report had: lines of text, each body one shared Buffer.
  const bodies = Array.from({ length: 4 }, (_, k) => {
    const line = `result ${k}: ${'a line of a long tool result, '.repeat(3)}\n`;
    return Buffer.from(JSON.stringify({ tool: 'bench', content: line.repeat(Math.floor(SIZE / line.length)) }));
  });
  gc();
  await sleep(500);
  const before = rss();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rss())), 20);
  const statuses = await Promise.all(
    Array.from({ length: CONCURRENT }, (_, i) =>
      fetch(`${svc.url}/v1/results`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ticket}`, 'content-type': 'application/json' },
        body: bodies[i % bodies.length],
      }).then(async (r) => {
        const text = await r.text();
        if (r.status !== 200) console.log(`answer ${r.status}: ${text.slice(0, 200)}`);
        return r.status;
      }),
    ),
  );
  clearInterval(sampler);
  for (let i = 0; i < 5; i++) {
    gc();
    await sleep(1000);
  }
  const after = rss();
  const counts = Object.entries(statuses.reduce<Record<number, number>>((m, s) => ({ ...m, [s]: (m[s] ?? 0) + 1 }), {}));
  console.log(`results memory: ${CONCURRENT} concurrent ${SIZE / MiB} MiB results: answers ${counts.map(([s, n]) => `${n}× ${s}`).join(', ')}`);
  console.log(`RSS before ${before} MiB, peak ${peak} MiB, after 5 s ${after} MiB (after - before: ${after - before} MiB; target ≤ 200)`);
} finally {
  await svc.close();
}
