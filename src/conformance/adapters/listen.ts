/** Listening on loopback only, on a port the system picks: every server of the harness. */
import {
  createServer,
  type IncomingMessage,
  type Server as HttpServer,
  type ServerResponse,
} from 'node:http';
import type { Server, Socket } from 'node:net';

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

/**
 * An HTTP server on 127.0.0.1 (port 0) that routes every request through `route` (a failure
 * becomes a JSON-RPC 500, or a cut connection once headers went out) and keeps its open
 * sockets in `sockets`, so that a restart or a network fault can cut them.
 */
export async function serveLoopback(
  route: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  sockets: Set<Socket>,
): Promise<{ server: HttpServer; port: number }> {
  const server = createServer((req, res) => {
    route(req, res).catch(() => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          error: { code: -32603, message: 'Internal server error' },
          id: null,
        }),
      );
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const port = await listenLoopback(server);
  return { server, port };
}
