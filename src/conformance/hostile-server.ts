/**
 * A hostile MCP server for any client: a hand-written Streamable HTTP server on loopback (no MCP
 * SDK) that serves the tool `count` and plays one of the kit's faults against whoever calls it
 * (a skip, an empty 200, an eviction, a restart's 404, an upgrade to 2026-07-28, a polling close,
 * a keepalive stall, id-only blocks, `retry:` values, cross-stream events). It records what the
 * client did: every request, the cursors it sent, the re-issued calls, the retries per second
 * (the record: hostile-activity.ts; the ids, a call's shape and the verdict from the wire:
 * hostile-wire.ts). `mcp-resumption serve` runs one; `conformance --client-cmd` runs a client
 * against each. This file holds the server itself: its options, its handler, and how each
 * scenario's fault is played on a call and answered on a resume.
 *
 * Ids are `c<k>-<seq>` (`HOSTILE_ID_PATTERN`): call `k` of the server's life, `seq` counting
 * from 1 on that call's stream (0: the priming event). Messages are the test tool's: progress
 * `c<k>#<i>`, then the result `c<k>:result:<n>` (docs/conformance.md, "The test tool contract").
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { ActivityLog, type ClientActivity, type SeenRequest } from './hostile-activity.js';
import { HOSTILE_ID_PATTERN, HOSTILE_N, wireVerdict, type WireVerdict } from './hostile-wire.js';
import { messageText, resultText } from './tool.js';
import type { HostileScenario } from './scenarios/hostile.js';

export {
  HOSTILE_SCENARIOS,
  hostileScenario,
  type Expectation,
  type HostileScenario,
} from './scenarios/hostile.js';

/** Options of {@link startHostileServer}. */
export interface HostileServerOptions {
  /** Port on 127.0.0.1 (0: any free port). */
  port?: number;
  /** Milliseconds between messages. Default 20. */
  gapMs?: number;
  /**
   * Bounds on what a long-lived server keeps (`serve` runs for days against a client in a
   * loop): the newest `sessions` sessions (an older one is answered 404, as after a restart),
   * the newest `calls` call streams (an older stream's cursor is answered 400), the newest
   * `requests` requests in {@link HostileServer.seen}. The activity counts everything.
   * Defaults 4096, 64, 1000.
   */
  keep?: { sessions?: number; calls?: number; requests?: number };
}

/** A running hostile server. */
export interface HostileServer {
  url: string;
  scenario: HostileScenario;
  /** The newest requests (at most `keep.requests`), oldest first. */
  readonly seen: readonly SeenRequest[];
  /** What the client did so far. */
  activity(): ClientActivity;
  /** Each session that called `count`, judged from the wire ({@link wireVerdict}). */
  clients(): WireVerdict[];
  /** Cuts every connection and stops listening. */
  close(): Promise<void>;
}

const N = HOSTILE_N;
const CUT_AFTER = 5;
const MAX_BODY = 1 << 20;

interface Frame {
  seq: number;
  /** `null`: an id-only block. */
  data: string | null;
  /** What it carries, as the judge names it (`c1#3`, `c1:result`). */
  item?: string;
}

/** Starts the hostile server for `scenario` on loopback. */
export async function startHostileServer(
  scenario: HostileScenario,
  options: HostileServerOptions = {},
): Promise<HostileServer> {
  const gapMs = options.gapMs ?? 20;
  const keepSessions = options.keep?.sessions ?? 4096;
  const keepCalls = options.keep?.calls ?? 64;
  const keepRequests = options.keep?.requests ?? 1000;
  const started = Date.now();
  const seen: SeenRequest[] = [];
  const log = new ActivityLog(keepCalls);
  const sessions = new Set<string>();
  const mcpPath = '/mcp';
  const sockets = new Set<Socket>();
  const open = new Set<ServerResponse>();
  /** The session of each open SSE response (for "still waiting" at stop). */
  const openSession = new WeakMap<ServerResponse, string>();
  const timers = new Set<NodeJS.Timeout>();
  /** Call number → the frames of its stream. */
  const streams = new Map<string, Frame[]>();
  let calls = 0;
  /** After a "restart": sessions are gone (restart-404) or the server is 2026-07-28. */
  let restarted = false;

  const sleep = (ms: number) =>
    new Promise<void>((r) => {
      const t = setTimeout(() => {
        timers.delete(t);
        r();
      }, ms);
      timers.add(t);
    });
  const noteSeen = (r: Omit<SeenRequest, 't'>): void => {
    const full = { t: Date.now() - started, ...r };
    log.note(full);
    seen.push(full);
    if (seen.length > keepRequests) seen.splice(0, seen.length - keepRequests);
  };
  const cutNow = () => log.cut(Date.now() - started);
  const json = (res: ServerResponse, status: number, body: unknown, headers = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(body === undefined ? undefined : JSON.stringify(body));
  };
  const sse = (res: ServerResponse, headers: Record<string, string> = {}) => {
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      ...headers,
    });
    res.flushHeaders();
    open.add(res);
    if (headers['mcp-session-id'] !== undefined) openSession.set(res, headers['mcp-session-id']);
    res.on('close', () => open.delete(res));
  };
  const alive = (res: ServerResponse) => !res.writableEnded && !res.destroyed;
  const write = (res: ServerResponse, text: string) => {
    if (alive(res)) res.write(text);
  };
  const frameText = (stream: string, f: Frame, ids = true) =>
    f.data === null
      ? `id: ${stream}-${f.seq}\n\n`
      : `${ids ? `id: ${stream}-${f.seq}\n` : ''}data: ${f.data}\n\n`;
  /** Writes frame `f` of `stream` on `res`, and records it as served. */
  const serveFrame = (res: ServerResponse, stream: string, f: Frame, ids = true) => {
    if (!alive(res)) return;
    res.write(frameText(stream, f, ids));
    if (f.item !== undefined) log.serve(stream, f.item);
  };
  const cut = (res: ServerResponse) => {
    cutNow();
    res.socket?.destroy();
  };

  const progress = (k: number, i: number, token: unknown) =>
    JSON.stringify({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: token, progress: i, total: N, message: messageText(`c${k}`, i) },
    });
  const progressFrame = (seq: number, k: number, i: number, token: unknown): Frame => ({
    seq,
    data: progress(k, i, token),
    item: `c${k}#${i}`,
  });
  const resultFrame = (seq: number, k: number, id: unknown): Frame => ({
    seq,
    data: result(k, id),
    item: `c${k}:result`,
  });
  const result = (k: number, id: unknown) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      result: { content: [{ type: 'text', text: resultText(`c${k}`, N) }] },
    });

  /** Plays call `k` on `res`: the scenario's fault decides where it stops. */
  async function playCall(res: ServerResponse, k: number, id: unknown, token: unknown) {
    const stream = `c${k}`;
    const frames: Frame[] = [];
    streams.set(stream, frames);
    if (streams.size > keepCalls) streams.delete(streams.keys().next().value!);
    // After the upgrade the server is 2026-07-28: no ids, no priming, no resumption.
    const ids = !restarted || scenario.name !== 'upgraded-mid-call';
    const faulty = k === 1 && !restarted;
    const retry =
      scenario.name === 'polling-close'
        ? 'retry: 200\n'
        : scenario.name === 'retry-storm'
          ? 'retry: 1000000000000\n'
          : '';
    if (ids) write(res, `${retry}id: ${stream}-0\ndata: \n\n`);
    let seq = 0;
    for (let i = 1; i <= N; i++) {
      if (i > 1) await sleep(gapMs);
      if (faulty && scenario.name === 'keepalive-stall' && i === 4) {
        for (let s = 0; s < 8; s++) {
          write(res, ': keepalive\n\n');
          await sleep(250);
        }
      }
      const f = progressFrame(++seq, k, i, token);
      frames.push(f);
      serveFrame(res, stream, f, ids);
      if (
        faulty &&
        i === CUT_AFTER &&
        scenario.name !== 'honest' &&
        scenario.name !== 'keepalive-stall'
      ) {
        if (scenario.name === 'id-only-blocks') {
          const block: Frame = { seq: ++seq, data: null };
          frames.push(block);
          serveFrame(res, stream, block);
        }
        // The rest of the call is stored (a resume replays it), never written here.
        for (let j = i + 1; j <= N; j++) frames.push(progressFrame(++seq, k, j, token));
        frames.push(resultFrame(++seq, k, id));
        // Message 5 reaches the client before the fault (a cut discards unsent bytes).
        await sleep(gapMs);
        if (scenario.name === 'polling-close' || scenario.name === 'retry-storm') {
          cutNow();
          res.end();
        } else {
          cut(res);
        }
        if (scenario.name === 'restart-404' || scenario.name === 'upgraded-mid-call') {
          restarted = true;
          sessions.clear();
        }
        return;
      }
    }
    const f = resultFrame(++seq, k, id);
    frames.push(f);
    serveFrame(res, stream, f, ids);
    if (alive(res)) res.end();
  }

  /** Answers a GET with `Last-Event-ID`, as the scenario dictates. */
  function resume(req: IncomingMessage, res: ServerResponse, cursor: string): number {
    const m = HOSTILE_ID_PATTERN.exec(cursor);
    const frames = m ? streams.get(m.groups!.stream!) : undefined;
    if (!m || !frames) {
      json(res, 400, {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32000, message: 'unknown Last-Event-ID' },
      });
      return 400;
    }
    const stream = m.groups!.stream!;
    const after = Number(m.groups!.seq);
    const session = req.headers['mcp-session-id'];
    const headers: Record<string, string> =
      typeof session === 'string' ? { 'mcp-session-id': session } : {};
    switch (scenario.name) {
      case 'eviction':
        json(res, 409, {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32000, message: `events after ${cursor} were evicted` },
        });
        return 409;
      case 'empty-200': {
        sse(res, headers);
        const beat = setInterval(() => write(res, ': keepalive\n\n'), 200);
        timers.add(beat as unknown as NodeJS.Timeout);
        res.on('close', () => clearInterval(beat));
        return 200;
      }
      case 'retry-storm':
        sse(res, headers);
        write(res, 'retry: 1000000000000\n\n');
        res.end();
        return 200;
      case 'cross-stream': {
        sse(res, headers);
        for (let i = after + 1; i <= N; i++) {
          write(res, `id: x9-${i}\ndata: ${progress(9, i, 'x9').replace(/"c9#/g, '"x9#')}\n\n`);
          log.serve('x9', `x9#${i}`);
        }
        res.end();
        return 200;
      }
      default: {
        sse(res, headers);
        const from = scenario.name === 'skip' ? CUT_AFTER + 3 : after;
        for (const f of frames) if (f.seq > from) serveFrame(res, stream, f);
        res.end();
        return 200;
      }
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.on('error', () => {});
    const method = req.method ?? 'GET';
    const raw = req.headers['mcp-session-id'];
    const session = typeof raw === 'string' ? raw : undefined;
    const path = (req.url ?? '/').split('?')[0]!;
    if (path !== mcpPath) {
      // OAuth discovery (`/.well-known/…`) and the like: no such thing here, and no reconnect.
      json(res, 404, undefined);
      return noteSeen({ method, path: path.slice(0, 200), status: 404 });
    }
    const note = (r: Omit<SeenRequest, 't' | 'session'>) =>
      noteSeen({ ...r, ...(session !== undefined ? { session } : {}) });
    const version2026 = restarted && scenario.name === 'upgraded-mid-call';
    if (method === 'GET') {
      const last = req.headers['last-event-id'];
      const cursor = typeof last === 'string' && last !== '' ? last : null;
      if (version2026) {
        json(res, 405, undefined, { allow: 'POST' });
        return note({ method, cursor, status: 405 });
      }
      if (session !== undefined && !sessions.has(session)) {
        json(res, 404, {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32001, message: 'Session not found' },
        });
        return note({ method, cursor, status: 404 });
      }
      if (cursor === null) {
        json(res, 405, undefined, { allow: 'POST, DELETE' });
        return note({ method, cursor, status: 405 });
      }
      return note({ method, cursor, status: resume(req, res, cursor) });
    }
    if (method === 'DELETE') {
      if (session !== undefined) sessions.delete(session);
      json(res, 200, undefined);
      return note({ method, status: 200 });
    }
    if (method !== 'POST') {
      json(res, 405, undefined, { allow: 'GET, POST, DELETE' });
      return note({ method, status: 405 });
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of req as AsyncIterable<Buffer>) {
      size += c.length;
      if (size > MAX_BODY) {
        json(res, 413, undefined);
        return note({ method, status: 413 });
      }
      chunks.push(c);
    }
    let msg: { id?: unknown; method?: string; params?: Record<string, unknown> };
    try {
      msg = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof msg;
    } catch {
      json(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
      return note({ method, status: 400 });
    }
    const rpc = typeof msg?.method === 'string' ? msg.method : undefined;
    const reply = (status: number, body: unknown, headers = {}) => {
      json(res, status, body, headers);
      note({ method, ...(rpc ? { rpc } : {}), status });
    };
    if (rpc === 'initialize') {
      const asked = (msg.params?.protocolVersion as string | undefined) ?? '2025-11-25';
      const result = {
        protocolVersion: version2026 ? '2026-07-28' : asked,
        capabilities: { tools: {} },
        serverInfo: { name: `mcp-resumption serve ${scenario.name}`, version: '1' },
      };
      if (version2026) return reply(200, { jsonrpc: '2.0', id: msg.id, result });
      const id = randomUUID();
      sessions.add(id);
      if (sessions.size > keepSessions) sessions.delete(sessions.values().next().value!);
      return reply(200, { jsonrpc: '2.0', id: msg.id, result }, { 'mcp-session-id': id });
    }
    if (!version2026 && (session === undefined || !sessions.has(session))) {
      const missing = session === undefined;
      return reply(missing ? 400 : 404, {
        jsonrpc: '2.0',
        id: msg.id ?? null,
        error: { code: -32001, message: missing ? 'Mcp-Session-Id required' : 'Session not found' },
      });
    }
    const headers: Record<string, string> = version2026 ? {} : { 'mcp-session-id': session! };
    if (msg.id === undefined || rpc === undefined) return reply(202, undefined);
    if (rpc === 'ping') return reply(200, { jsonrpc: '2.0', id: msg.id, result: {} }, headers);
    if (rpc === 'tools/list') {
      return reply(
        200,
        {
          jsonrpc: '2.0',
          id: msg.id,
          result: {
            tools: [
              {
                name: 'count',
                description: 'emits 8 numbered progress notifications, then its result',
                inputSchema: { type: 'object', properties: {} },
              },
            ],
          },
        },
        headers,
      );
    }
    if (rpc !== 'tools/call') {
      return reply(
        200,
        {
          jsonrpc: '2.0',
          id: msg.id,
          error: { code: -32601, message: `Method not found: ${rpc}` },
        },
        headers,
      );
    }
    const tool = msg.params?.name;
    if (tool !== 'count') {
      return reply(
        200,
        {
          jsonrpc: '2.0',
          id: msg.id,
          error: { code: -32602, message: `Unknown tool: ${String(tool)}` },
        },
        headers,
      );
    }
    const k = ++calls;
    const meta = msg.params?._meta as { progressToken?: unknown } | undefined;
    sse(res, headers);
    note({ method, rpc, tool, stream: `c${k}`, status: 200 });
    await playCall(res, k, msg.id, meta?.progressToken ?? `c${k}-progress`);
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) json(res, 500, undefined);
      else res.end();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    scenario,
    seen,
    activity: () => log.activity(),
    clients: () => {
      const waiting = new Set(
        [...open].filter((r) => !r.writableEnded).map((r) => openSession.get(r)),
      );
      const served = log.activity().served;
      return log.sessions().map((a) => wireVerdict(scenario, a, served, waiting.has(a.session)));
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      for (const res of open) res.destroy();
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
