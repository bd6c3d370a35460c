/**
 * A host for servers written against the Web `Request`/`Response` API (a fetch handler, as for
 * Deno, Bun, Cloudflare Workers or Hono): `serveFetch` runs a `(Request) => Promise<Response>`
 * on 127.0.0.1 with Node's `http`, so that such a server can be put under the harness
 * (`conformance --adapter`) without a framework. Two things matter to the scenarios and are
 * done here: an event-stream response's headers go out at once (a call held before its first
 * message must not look like a server that never answered), and a client that goes away
 * aborts `request.signal` and cancels the response body, as a fetch runtime does.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { readBody } from './adapters/host.js';

/** A fetch handler: what a Web-API server exports. */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

/** A running {@link serveFetch} host. */
export interface FetchHost {
  /** `http://127.0.0.1:<port><path>`: the MCP endpoint to hand the harness. */
  readonly url: string;
  /** The port it listens on (give it back to {@link serveFetch} to restart at the same URL). */
  readonly port: number;
  /** Cuts every open connection (a network fault; the adapter's `dropConnections`). */
  dropConnections(): void;
  /** Cuts every connection and stops listening. */
  close(): Promise<void>;
}

/** Options of {@link serveFetch}. */
export interface ServeFetchOptions {
  /** The endpoint's path in {@link FetchHost.url} (default `/mcp`); every path is served. */
  path?: string;
  /** The port (default 0: one the system picks). Always on 127.0.0.1. */
  port?: number;
}

function toHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return headers;
}

/** Writes a fetch `Response` to Node's `res`, flushing event-stream headers at once. */
async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    const prev = headers[name];
    headers[name] = prev === undefined ? value : [prev, value].flat();
  });
  res.writeHead(response.status, headers);
  const type = response.headers.get('content-type') ?? '';
  if (type.includes('text/event-stream')) res.flushHeaders();
  const body = response.body;
  if (!body) {
    res.end();
    return;
  }
  const reader = body.getReader();
  res.on('close', () => void reader.cancel().catch(() => {}));
  for (;;) {
    const { done, value } = await reader.read();
    if (done || res.destroyed) break;
    res.write(value);
  }
  if (!res.destroyed) res.end();
}

/**
 * Runs `handler` on 127.0.0.1 (loopback only): each Node request becomes a `Request` (body
 * read whole, at most 1 MiB: 413 above), the `Response` is written back, streamed; an
 * event-stream response's headers are flushed at once. A handler that throws is a 500 (or a
 * cut connection once the headers went out).
 */
export async function serveFetch(
  handler: FetchHandler,
  options: ServeFetchOptions = {},
): Promise<FetchHost> {
  const sockets = new Set<Socket>();
  let port = options.port ?? 0;
  const server = createServer((req, res) => {
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    res.on('error', () => {});
    void (async () => {
      const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
      const body = hasBody ? await readBody(req) : undefined;
      if (body === null) {
        res.writeHead(413, { 'content-type': 'text/plain' }).end('request body too large\n');
        return;
      }
      const request = new Request(`http://127.0.0.1:${port}${req.url ?? '/'}`, {
        method: req.method ?? 'GET',
        headers: toHeaders(req),
        ...(body !== undefined ? { body: new Uint8Array(body) } : {}),
        signal: abort.signal,
      });
      await writeResponse(await handler(request), res);
    })().catch(() => {
      if (!res.headersSent)
        res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error\n');
      else res.destroy();
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const addr = server.address();
  if (addr === null || typeof addr === 'string') throw new Error('serveFetch: no port');
  port = addr.port;
  const dropConnections = () => {
    for (const s of sockets) s.destroy();
  };
  return {
    url: `http://127.0.0.1:${port}${options.path ?? '/mcp'}`,
    port,
    dropConnections,
    async close() {
      dropConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
