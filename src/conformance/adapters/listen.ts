/** Listening on loopback only, on a port the system picks: every server of the harness. */
import type { Server } from 'node:net';

/** Listens on 127.0.0.1 port 0; resolves to the port the system gave, rejects on error. */
export async function listenLoopback(server: Server): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const addr = server.address();
  if (addr === null || typeof addr === 'string') throw new Error('no port');
  return addr.port;
}
