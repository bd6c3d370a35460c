/**
 * A hostile loopback HTTP server for the guard's suites: the test scripts every answer at the
 * byte level (status, headers, body chunks, pauses, a clean end or a reset), and the server
 * records what the client sent. Loopback only; every socket is destroyed on close.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { afterEach } from 'vitest';

/** One step of an answer's body. */
export type Step =
  | { write: string | Uint8Array }
  | { wait: number }
  /** The server ends the response cleanly. */
  | { end: true }
  /** The connection is reset (no clean end). */
  | { destroy: true }
  /** The answer waits until this settles (a step of another request, or of the test). */
  | { until: Promise<unknown> };

/**
 * One scripted answer. `steps` run in order; without an end or a reset the answer is held.
 * Status 0: the server never sends the headers (it holds the request).
 */
export interface Answer {
  status: number;
  /** The server holds the headers this long first. */
  headerDelayMs?: number;
  headers?: Record<string, string>;
  steps: Step[];
}

/** What the server saw of one request. */
export interface Seen {
  method: string;
  lastEventId: string | undefined;
  path: string;
  /** A POST's JSON-RPC method and id, when its body is one JSON-RPC message. */
  rpc?: string;
  id?: unknown;
}

/** A running hostile server. */
export interface Hostile {
  url: string;
  seen: Seen[];
  close(): Promise<void>;
}

/** Text of an SSE event with an id (`id` null: id-less data). */
export function sse(id: string | number | null, data: unknown): string {
  return `${id === null ? '' : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`;
}

/** The i-th owed notification of the scripted call. */
export function note(i: number): unknown {
  return { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: i } };
}

/** The result of the scripted call (request id 1). */
export const RESULT = { jsonrpc: '2.0', id: 1, result: { content: [] } };

/** What `p` rejected with (`null`: it resolved). */
export async function failureOf(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
    return null;
  } catch (e) {
    return e;
  }
}

/** Plays one scripted answer on `res`. */
export async function play(res: ServerResponse, a: Answer): Promise<void> {
  if (a.status === 0) return;
  if (a.headerDelayMs) await new Promise((r) => setTimeout(r, a.headerDelayMs));
  if (res.destroyed) return;
  res.writeHead(a.status, a.headers ?? {});
  res.flushHeaders();
  for (const step of a.steps) {
    if (res.destroyed) return;
    if ('write' in step) res.write(step.write);
    else if ('wait' in step) await new Promise((r) => setTimeout(r, step.wait));
    else if ('until' in step) await step.until;
    else if ('end' in step) return void res.end();
    else return void res.socket?.destroy();
  }
}

/** `text/event-stream` headers. */
export const SSE_HEADERS = { 'content-type': 'text/event-stream' };

/**
 * Starts a server: POSTs with a request are answered by `answer('POST', n, seen)`, POSTs of
 * notifications get 202, GETs by `answer('GET', n, seen)` (`n` counts that method from 0).
 */
export async function hostile(
  answer: (method: 'POST' | 'GET', n: number, seen: Seen) => Answer,
): Promise<Hostile> {
  const seen: Seen[] = [];
  const counts = { POST: 0, GET: 0 };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const method = req.method === 'POST' ? 'POST' : 'GET';
      const s: Seen = {
        method,
        lastEventId: req.headers['last-event-id'] as string | undefined,
        path: req.url ?? '/',
      };
      try {
        const m = JSON.parse(body) as { method?: unknown; id?: unknown };
        if (typeof m.method === 'string') s.rpc = m.method;
        s.id = m.id;
      } catch {
        // not JSON: no method to note
      }
      seen.push(s);
      if (method === 'POST' && !body.includes('"id"')) return void res.writeHead(202).end();
      play(res, answer(method, counts[method]++, s)).catch(() => res.socket?.destroy());
    });
  });
  return { ...(await listenLoopback(server)), seen };
}

/**
 * Listens on a free loopback port, at `/mcp`; `close` destroys every open socket first (a test
 * server holds streams open), then closes the server. The test servers of this folder share it.
 */
export async function listenLoopback(
  server: Server,
): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** The first stream of a scripted call: ids 1..3, then the server ends it before the result. */
export const FIRST_THREE: Answer = {
  status: 200,
  headers: SSE_HEADERS,
  steps: [{ write: sse(1, note(1)) + sse(2, note(2)) + sse(3, note(3)) }, { end: true }],
};

/** A `serve` for a suite: every server it starts is closed after each test. */
export function hostileSuite(): (answer: Parameters<typeof hostile>[0]) => Promise<Hostile> {
  const running: Hostile[] = [];
  afterEach(async () => {
    for (const h of running.splice(0)) await h.close();
  });
  return async (answer) => {
    const h = await hostile(answer);
    running.push(h);
    return h;
  };
}
