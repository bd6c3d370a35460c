/**
 * A TCP front for servers that do not expose their sockets: it listens on 127.0.0.1 (port 0),
 * forwards every connection to the backend port, and can cut every connection at once (a
 * network fault) or keep its port while the backend behind it restarts.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { listenLoopback } from './listen.js';

/** A loopback TCP forwarder with a kill switch. */
export class TcpFront {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  /** The backend port connections are forwarded to. */
  backendPort = 0;

  /** Starts listening; resolves to the front's port. */
  async listen(): Promise<number> {
    const server = createServer((client) => {
      const upstream = connect(this.backendPort, '127.0.0.1');
      this.sockets.add(client);
      this.sockets.add(upstream);
      const close = () => {
        client.destroy();
        upstream.destroy();
        this.sockets.delete(client);
        this.sockets.delete(upstream);
      };
      client.on('error', close).on('close', close);
      upstream.on('error', close).on('close', close);
      client.pipe(upstream);
      upstream.pipe(client);
    });
    const port = await listenLoopback(server);
    this.server = server;
    return port;
  }

  /** Cuts every open connection. */
  dropConnections(): void {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }

  /** Stops listening and cuts every connection. */
  async close(): Promise<void> {
    this.dropConnections();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((r) => server.close(() => r()));
  }
}

/** A free loopback port (listen on 0, read it, close). */
export async function freePort(): Promise<number> {
  const server = createServer();
  const port = await listenLoopback(server);
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}
