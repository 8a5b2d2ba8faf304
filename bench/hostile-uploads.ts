import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { startService } from '../adapters/service.ts';
import { newAuditKey } from '../adapters/keys/audit-key.ts';
import { fmt, row } from './harness.ts';

const MiB = 1 << 20;

/**
 * Declares a `declared`-byte upload and writes it in 64 KiB chunks, each after the last one
 * was taken, until the server answers or closes: answers the status and the bytes sent.
 */
const upload = (base: string, target: string, type: string, declared: number): Promise<{ status: number; written: number }> => {
  const { hostname, port } = new URL(base);
  const block = Buffer.alloc(64 * 1024, 0x61);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let written = 0;
    let head = '';
    let done = false;
    const pump = () => {
      if (done || written >= declared) return;
      const n = Math.min(block.length, declared - written);
      written += n;
      socket.write(n === block.length ? block : block.subarray(0, n), (err) => (err ? undefined : pump()));
    };
    socket.on('connect', () => {
      socket.write(
        `POST ${target} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: ${type}\r\nAuthorization: Bearer not-a-ticket\r\nContent-Length: ${declared}\r\n\r\n`,
      );
      pump();
    });
    socket.on('data', (d) => {
      head += d.toString('latin1');
      if (head.includes('\r\n\r\n')) {
        done = true;
        socket.destroy();
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), written }));
  });
};

/**
 * The memory of the service (this process: the service and the clients, whose chunks are one
 * shared buffer) before and after 16 concurrent 64 MiB unauthenticated uploads, per target.
 * A server that buffered them before refusing would grow by about 1 GiB per round.
 */
export const benchHostileUploads = async (databaseUrl: string) => {
  const svc = await startService({ databaseUrl, adminKey: randomBytes(16).toString('hex'), masterKey: randomBytes(32), auditKey: newAuditKey(), port: 0 });
  const clients = 16;
  const declared = 64 * MiB;
  console.log(`\nHostile uploads: ${clients} concurrent ${declared / MiB} MiB uploads without a valid credential (RSS of the process)`);
  console.log(row(['target', 'content-type', 'answers', 'MiB sent', 'RSS before MiB', 'RSS peak MiB', 'RSS after MiB']));
  try {
    for (const [target, type] of [
      ['/v1/records', 'application/x-ndjson'],
      ['/v1/records', 'application/json'],
      ['/v1/tenants/acme/import', 'application/x-ndjson'],
      ['/v1/tenants', 'application/json'],
    ] as const) {
      const before = process.memoryUsage().rss;
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
      const answers = await Promise.all(Array.from({ length: clients }, () => upload(svc.url, target, type, declared)));
      clearInterval(sampler);
      const after = process.memoryUsage().rss;
      peak = Math.max(peak, after);
      const statuses = [...new Set(answers.map((a) => a.status))].join(',');
      const sent = answers.reduce((n, a) => n + a.written, 0);
      console.log(row([target, type, `${answers.length}× ${statuses}`, fmt(sent / MiB, 1), fmt(before / MiB, 0), fmt(peak / MiB, 0), fmt(after / MiB, 0)]));
    }
  } finally {
    await svc.close();
  }
};
