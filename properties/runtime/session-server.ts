/**
 * A loopback MCP server with any number of sessions, for tests through `Client.callTool`: each
 * `initialize` opens a session (`s1`, `s2`, …) and is answered as JSON; notifications get 202;
 * every `tools/call` POST and every GET is answered as the test scripts it (./hostile.ts
 * `Answer`), with the request's session and its number among that session's calls or GETs.
 * Event ids are the test's: a server that counts 1, 2, 3… per session repeats them across
 * sessions, as MCP allows. Loopback only; every socket is destroyed on close.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { afterEach } from 'vitest';
import { listenLoopback, play, type Answer } from './hostile.js';

/** One request the server received. */
export interface SessionRequest {
  method: 'POST' | 'GET';
  session: string | undefined;
  lastEventId: string | undefined;
  /** A POST's JSON-RPC method, id and params. */
  rpc?: string;
  id?: unknown;
  params?: Record<string, unknown>;
  /** Its number among the session's `tools/call` POSTs, or among its GETs (from 0). */
  n: number;
}

/** A running server. */
export interface SessionServer {
  url: string;
  seen: SessionRequest[];
  close(): Promise<void>;
}

type Script = (r: SessionRequest) => Answer;

/** Starts a server: `script` answers every `tools/call` POST and every GET. */
export async function sessionServer(script: Script): Promise<SessionServer> {
  const seen: SessionRequest[] = [];
  const counts = new Map<string, number>();
  let sessions = 0;
  const next = (key: string) => {
    const n = counts.get(key) ?? 0;
    counts.set(key, n + 1);
    return n;
  };
  const handle = (req: IncomingMessage, res: ServerResponse, body: string) => {
    const session = req.headers['mcp-session-id'] as string | undefined;
    const lastEventId = req.headers['last-event-id'] as string | undefined;
    if (req.method === 'DELETE') return void res.writeHead(200).end();
    if (req.method === 'GET') {
      const r: SessionRequest = { method: 'GET', session, lastEventId, n: next(`${session} GET`) };
      seen.push(r);
      return void play(res, script(r)).catch(() => res.socket?.destroy());
    }
    let m: { method?: string; id?: unknown; params?: Record<string, unknown> };
    try {
      m = JSON.parse(body) as typeof m;
    } catch {
      return void res.writeHead(400).end();
    }
    if (m.id === undefined) return void res.writeHead(202).end();
    const json = (payload: unknown, headers: Record<string, string> = {}) =>
      void res
        .writeHead(200, { 'content-type': 'application/json', ...headers })
        .end(JSON.stringify({ jsonrpc: '2.0', id: m.id, ...(payload as object) }));
    if (m.method === 'initialize') {
      return json(
        {
          result: {
            protocolVersion: '2025-11-25',
            capabilities: { tools: {}, logging: {} },
            serverInfo: { name: 'session-server', version: '1.0.0' },
          },
        },
        { 'mcp-session-id': `s${++sessions}` },
      );
    }
    if (m.method !== 'tools/call') {
      return json({ error: { code: -32601, message: `Method not found: ${m.method}` } });
    }
    const r: SessionRequest = {
      method: 'POST',
      session,
      lastEventId,
      rpc: m.method,
      id: m.id,
      ...(m.params ? { params: m.params } : {}),
      n: next(`${session} POST`),
    };
    seen.push(r);
    play(res, script(r)).catch(() => res.socket?.destroy());
  };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => handle(req, res, body));
  });
  return { ...(await listenLoopback(server)), seen };
}

/** A `serve` for a suite: every server it starts is closed after each test. */
export function sessionSuite(): (script: Script) => Promise<SessionServer> {
  const running: SessionServer[] = [];
  afterEach(async () => {
    for (const s of running.splice(0)) await s.close();
  });
  return async (script) => {
    const s = await sessionServer(script);
    running.push(s);
    return s;
  };
}

/** A promise and its resolver, to order one request's steps after another's. */
export function signal(): { done: Promise<void>; fire: () => void } {
  let fire!: () => void;
  const done = new Promise<void>((r) => (fire = r));
  return { done, fire };
}
