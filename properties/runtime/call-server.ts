/**
 * A raw loopback MCP server for tests that go through what applications call
 * (`Client.callTool` of SDK 1.x and 2.x): it answers `initialize` (with a session, or without
 * one for the 2026-07-28 era), and a `tools/call` with an SSE stream that sends two
 * notifications with ids 1 and 2, then breaks. What it answers to the client's resume GET is
 * the scenario's `resume`. Every other request method gets a JSON-RPC "method not found".
 * Loopback only; every socket is destroyed on close.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** How the server answers the resume GET (`Last-Event-ID: 2`). */
export type Resume =
  /** A server upgraded to 2026-07-28 during a rolling deploy: no GET endpoint. */
  | '405'
  /** The session was reaped (a restart). */
  | '404'
  /** A 200 whose first event is id 5: events 3 and 4 were skipped. */
  | 'skip'
  /** A 200 that never sends an event (nor a byte) and stays open. */
  | 'silent'
  /** No answer at all: the request is held, its status line never comes. */
  | 'no-headers'
  /** A faithful replay: id 3 (a notification), then id 4, the result. */
  | 'faithful'
  /** A faithful replay whose result (id 3) is 16 KiB, sent in two writes: over a small maxEventBytes. */
  | 'oversize';

/** What the server does. */
export interface CallScenario {
  resume: Resume;
  /**
   * The call's stream carries no ids and no session is given (a 2026-07-28 server): nothing can
   * be resumed, the stream just breaks after two notifications.
   */
  era?: '2025-11-25' | '2026-07-28';
  /** How the call's stream ends after its two notifications (default: a reset). */
  ending?: 'destroy' | 'end';
  /** A later `tools/call` (a re-issue) is answered at once with its result (default: as the first). */
  again?: 'answer';
  /** The SSE id of event `n` (default: `n` itself): a hostile server's ids. */
  idOf?: (n: number) => string;
  /**
   * SSE text the call's stream carries after its two notifications, before it breaks (a
   * hostile server's stray message); `callId` is the call's request id, as sent.
   */
  extra?: (callId: unknown) => string;
  /** The annotations `tools/list` gives the tool `count` (none when absent). */
  annotations?: Record<string, unknown>;
}

/** A running server. */
export interface CallServer {
  url: string;
  /** Every request: method, JSON-RPC method and id (POST) and `Last-Event-ID` (GET). */
  seen: { method: string; rpc?: string; id?: unknown; lastEventId?: string; t: number }[];
  /** When the server answered the resume GET (`Date.now()`), once it has. */
  resumedAt(): number | undefined;
  /** When the call's stream broke (`Date.now()`). */
  brokeAt(): number | undefined;
  close(): Promise<void>;
}

const SSE = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

function event(id: number | string | null, data: unknown): string {
  return `${id === null ? '' : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`;
}

function progress(i: number): unknown {
  return { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: i } };
}

/** Starts the server on a free loopback port. */
export async function callServer(s: CallScenario): Promise<CallServer> {
  const modern = s.era === '2026-07-28';
  const seen: CallServer['seen'] = [];
  const sockets = new Set<Socket>();
  let resumedAt: number | undefined;
  let brokeAt: number | undefined;
  let callId: unknown;
  const idOf = (n: number) => (s.idOf ? s.idOf(n) : n);

  const post = (res: ServerResponse, body: string) => {
    let m: { id?: unknown; method?: string; params?: { protocolVersion?: string } };
    try {
      m = JSON.parse(body) as typeof m;
    } catch {
      return void res.writeHead(400).end();
    }
    seen[seen.length - 1]!.rpc = m.method;
    seen[seen.length - 1]!.id = m.id;
    if (m.id === undefined) return void res.writeHead(202).end();
    const json = (result: unknown, extra: Record<string, string> = {}) =>
      void res
        .writeHead(200, { 'content-type': 'application/json', ...extra })
        .end(JSON.stringify({ jsonrpc: '2.0', id: m.id, ...(result as object) }));
    if (m.method === 'initialize') {
      const version = m.params?.protocolVersion ?? '2025-11-25';
      return json(
        {
          result: {
            protocolVersion: version,
            capabilities: { tools: {} },
            serverInfo: { name: 'call-server', version: '1.0.0' },
          },
        },
        modern ? {} : { 'mcp-session-id': 'session-1' },
      );
    }
    if (m.method === 'tools/list') {
      return json({
        result: {
          tools: [
            {
              name: 'count',
              inputSchema: { type: 'object', properties: {} },
              ...(s.annotations ? { annotations: s.annotations } : {}),
            },
          ],
        },
      });
    }
    if (m.method !== 'tools/call') {
      return json({ error: { code: -32601, message: `Method not found: ${m.method}` } });
    }
    const first = callId === undefined;
    callId = m.id;
    if (!first && s.again === 'answer') {
      res.writeHead(200, SSE);
      return void res.end(
        event(modern ? null : 11, { jsonrpc: '2.0', id: m.id, result: { content: [] } }),
      );
    }
    res.writeHead(200, SSE);
    res.flushHeaders();
    res.write(
      event(modern ? null : idOf(1), progress(1)) +
        event(modern ? null : idOf(2), progress(2)) +
        (s.extra?.(m.id) ?? ''),
    );
    setTimeout(() => {
      brokeAt = Date.now();
      if (s.ending === 'end') res.end();
      else res.socket?.destroy();
    }, 20);
  };

  const get = (req: IncomingMessage, res: ServerResponse) => {
    const cursor = req.headers['last-event-id'];
    if (cursor === undefined || modern) return void res.writeHead(405).end();
    resumedAt = Date.now();
    switch (s.resume) {
      case '405':
        return void res.writeHead(405, { allow: 'POST' }).end();
      case '404':
        return void res.writeHead(404).end();
      case 'silent':
        res.writeHead(200, SSE);
        return void res.flushHeaders();
      case 'no-headers':
        return;
      case 'skip':
        res.writeHead(200, SSE);
        return void res.write(event(idOf(5), progress(5)));
      case 'oversize': {
        // In two writes, as a large event comes: the reader sees it incomplete first.
        const text = event(idOf(3), {
          jsonrpc: '2.0',
          id: callId,
          result: { content: [{ type: 'text', text: 'x'.repeat(16 * 1024) }], isError: false },
        });
        res.writeHead(200, SSE);
        res.write(text.slice(0, 8 * 1024));
        return void setTimeout(() => res.end(text.slice(8 * 1024)), 20);
      }
      case 'faithful':
        res.writeHead(200, SSE);
        return void res.end(
          event(idOf(3), progress(3)) +
            event(idOf(4), { jsonrpc: '2.0', id: callId, result: { content: [], isError: false } }),
        );
    }
  };

  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({
        method: req.method ?? 'GET',
        lastEventId: req.headers['last-event-id'] as string | undefined,
        t: Date.now(),
      });
      if (req.method === 'POST') post(res, body);
      else if (req.method === 'GET') get(req, res);
      else res.writeHead(405).end();
    });
  });
  server.on('connection', (sock: Socket) => {
    sockets.add(sock);
    sock.on('close', () => sockets.delete(sock));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seen,
    resumedAt: () => resumedAt,
    brokeAt: () => brokeAt,
    close: async () => {
      for (const sock of sockets) sock.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
