/**
 * A host for servers written against the Web `Request`/`Response` API (a fetch handler, as for
 * Deno, Bun, Cloudflare Workers or Hono): `serveFetch` runs a `(Request) => Promise<Response>`
 * on 127.0.0.1 with Node's `http`, so that such a server can be put under the harness
 * (`conformance --adapter`) without a framework. Two things matter to the scenarios and are
 * done here: an event-stream response's headers go out at once (a call held before its first
 * message must not look like a server that never answered), and a client that goes away
 * aborts `request.signal` and cancels the response body, as a fetch runtime does.
 *
 * What a deployment needs too, and is done here: the response body is read only as fast as the
 * client takes it (backpressure: a client that does not read costs the socket's buffers, not
 * the body), and a client that takes nothing for `stallMs` is cut (a producer that ignores
 * backpressure cannot then fill memory); `request.signal` aborts when the client leaves, also
 * after a garbage collection (see {@link serveFetch}); a 413 leaves the keep-alive connection
 * usable; absolute-form request targets are served, `OPTIONS *` answered 204 and any other odd
 * target 400. What it is not: no TLS, no HTTP/2, no request-body streaming (bodies are read
 * whole, at most 1 MiB), loopback only. Put a reverse proxy in front for those.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

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
  /**
   * How long (ms) a response may wait for a client that takes nothing (the socket's buffers
   * full) before the connection is cut and the body cancelled. Default 30000.
   */
  stallMs?: number;
}

/** Request bodies above this are refused with 413. */
const MAX_BODY = 1 << 20;
/** Beyond this, the rest of a refused body is not read: the connection is closed instead. */
const MAX_DISCARD = 64 << 20;

/**
 * Reads a request body, bounded: `null` when it is larger than {@link MAX_BODY}. The rest of a
 * refused body is read and dropped (up to {@link MAX_DISCARD}), so the connection is at the
 * next request when the 413 goes out: leaving it unread (or destroying the stream, as breaking
 * out of a `for await` does) reset the keep-alive connection under the client's next request.
 */
function readBounded(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
      else if (size > MAX_DISCARD) req.socket.destroy();
    });
    req.on('end', () => resolve(size > MAX_BODY ? null : Buffer.concat(chunks)));
    req.on('error', reject);
    req.on('close', () => resolve(size > MAX_BODY ? null : Buffer.concat(chunks)));
  });
}

/**
 * The URL of a request target (RFC 9112 §3.2): origin-form (`/path`) on this host's origin,
 * absolute-form (`http://host/path`, as sent to a proxy) as it is; `null` for anything else
 * (`*`, authority-form, garbage).
 */
function targetUrl(target: string, origin: string): URL | null {
  try {
    if (target.startsWith('/')) return new URL(origin + target);
    const url = new URL(target);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

function toHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return headers;
}

/**
 * Writes a fetch `Response` to Node's `res`, flushing event-stream headers at once, reading the
 * body only as fast as the socket takes it: when `write` says the buffers are full it waits for
 * `drain` (at most `stallMs`, then it cuts the connection) before reading on.
 */
async function writeResponse(
  response: Response,
  res: ServerResponse,
  stallMs: number,
): Promise<void> {
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
    if (res.write(value)) continue;
    // The socket's buffers are full: read nothing more until the client takes some.
    const drained = await new Promise<boolean>((resolve) => {
      const finish = (ok: boolean) => {
        clearTimeout(timer);
        res.off('drain', onDrain);
        res.off('close', onClose);
        resolve(ok);
      };
      const onDrain = () => finish(true);
      const onClose = () => finish(false);
      const timer = setTimeout(() => finish(false), stallMs);
      res.on('drain', onDrain);
      res.on('close', onClose);
    });
    if (!drained) {
      res.destroy();
      break;
    }
  }
  if (!res.destroyed) res.end();
}

/**
 * Runs `handler` on 127.0.0.1 (loopback only): each Node request becomes a `Request` (body
 * read whole, at most 1 MiB: 413 above, the connection kept), the `Response` is written back,
 * streamed with backpressure; an event-stream response's headers are flushed at once. A
 * handler that throws is a 500 (or a cut connection once the headers went out).
 *
 * `request.signal` aborts when the client leaves. The `Request` is held until its response
 * closes: undici's `Request` follows the signal it is given through a weak reference to its
 * own controller, which the `Request` alone holds, so a handler that kept only
 * `request.signal` (a reader registered on an idle task) lost the abort at the next garbage
 * collection.
 */
export async function serveFetch(
  handler: FetchHandler,
  options: ServeFetchOptions = {},
): Promise<FetchHost> {
  const sockets = new Set<Socket>();
  let port = options.port ?? 0;
  const stallMs = options.stallMs ?? 30_000;
  const server = createServer((req, res) => {
    const abort = new AbortController();
    let request: Request | undefined;
    res.on('close', () => {
      abort.abort();
      // Held until here (see above); dropped with the response.
      request = undefined;
    });
    res.on('error', () => {});
    const plain = (status: number, text: string) =>
      res.writeHead(status, { 'content-type': 'text/plain' }).end(`${text}\n`);
    void (async () => {
      const target = req.url ?? '/';
      const url = targetUrl(target, `http://127.0.0.1:${port}`);
      if (url === null) {
        req.resume();
        if (target === '*' && req.method === 'OPTIONS') {
          res.writeHead(204, { allow: 'GET, POST, DELETE, OPTIONS' }).end();
        } else plain(400, `bad request target: ${JSON.stringify(target.slice(0, 200))}`);
        return;
      }
      const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
      const body = hasBody ? await readBounded(req) : undefined;
      if (body === null) {
        plain(413, 'request body too large');
        return;
      }
      request = new Request(url, {
        method: req.method ?? 'GET',
        headers: toHeaders(req),
        ...(body !== undefined ? { body: new Uint8Array(body) } : {}),
        signal: abort.signal,
      });
      const response = await handler(request);
      await writeResponse(response, res, stallMs);
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
