import { createServer } from 'node:net';

/** A TCP port on 127.0.0.1 that nothing listens on now (taken from the OS, then let go). */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
