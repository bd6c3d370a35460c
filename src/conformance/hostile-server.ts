/**
 * A hostile MCP server for any client: a hand-written Streamable HTTP server on loopback (no MCP
 * SDK) that serves the tool `count` and plays one of the kit's faults against whoever calls it
 * (a skip, an empty 200, an eviction, a restart's 404, an upgrade to 2026-07-28, a polling close,
 * a keepalive stall, id-only blocks, `retry:` values, cross-stream events). It records what the
 * client did: every request, the cursors it sent, the re-issued calls, the retries per second.
 * `mcp-resumption serve` runs one; `conformance --client-cmd` runs a client against each.
 *
 * Ids are `c<k>-<seq>` (`HOSTILE_ID_PATTERN`): call `k` of the server's life, `seq` counting
 * from 1 on that call's stream (0: the priming event). Messages are the test tool's: progress
 * `c<k>#<i>`, then the result `c<k>:result:<n>` (docs/conformance.md, "The test tool contract").
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { messageText, resultText } from './tool.js';
import type { HostileScenario } from './scenarios/hostile.js';

export {
  HOSTILE_SCENARIOS,
  hostileScenario,
  type Expectation,
  type HostileScenario,
} from './scenarios/hostile.js';

/** The ids of the hostile server: `c<k>-<seq>`, a stream per call, `seq` contiguous from 0. */
export const HOSTILE_ID_PATTERN = /^(?<stream>c\d+)-(?<seq>\d+)$/;

/** One request the server saw. */
export interface SeenRequest {
  /** Milliseconds since the server started. */
  t: number;
  method: string;
  /** The path, when it is not the server's MCP path (`/mcp`): answered 404, never counted. */
  path?: string;
  /** The `Mcp-Session-Id` the request carried, if any. */
  session?: string;
  /** The JSON-RPC method of a POST, when it had one. */
  rpc?: string;
  /** The tool a `tools/call` named. */
  tool?: string;
  /** `Last-Event-ID` of a GET (`null`: none). */
  cursor?: string | null;
  /** The call stream a `tools/call` of `count` opened (`c1`, …). */
  stream?: string;
  /** The status it was answered. */
  status: number;
}

/** What one session (one client, until it re-initializes) did. */
export interface SessionActivity {
  session: string;
  /** Its calls of `count`, by stream (`c1`, `c2`, …). */
  calls: string[];
  reconnects: number;
  /** The cursors it sent (the first 16). */
  cursors: string[];
  /** Its GETs without `Last-Event-ID` after the first cut. */
  cursorDropped: number;
  /** Its most GETs in one second after the first cut. */
  maxGetsPerSecond: number;
}

/** What the server saw the client do, in words a report prints. */
export interface ClientActivity {
  requests: number;
  /** `tools/call` of `count`: more than one is a re-issued call. */
  calls: number;
  /** GETs with `Last-Event-ID`. */
  reconnects: number;
  /** The cursors sent, in order (the first {@link MAX_CURSORS}). */
  cursors: string[];
  /** GETs without `Last-Event-ID` after the first cut: the client dropped its cursor. */
  cursorDropped: number;
  /**
   * The most GETs on the MCP path in any one-second window after the first cut, in any one
   * session (a request without a session counts as its own): what a retry storm is measured on.
   * Requests to other paths (OAuth discovery, `/.well-known/…`) and GETs before the fault
   * (a proxy's probes at start) are no reconnects and never count.
   */
  maxGetsPerSecond: number;
  /** `initialize` requests. */
  initializes: number;
  /** Requests to a path other than the MCP path (answered 404). */
  otherPaths: number;
  /**
   * What the server wrote on each call's stream (`c1#1`, …, `c1:result`), in order, over every
   * connection: what a client was served, whatever it shows of it (a progress-blind client
   * surfaces only the result; it is judged from this).
   */
  served: Record<string, string[]>;
}

/** The most cursors {@link ClientActivity.cursors} keeps. */
export const MAX_CURSORS = 64;

/**
 * The activity, kept as counts as requests come (so a long-lived `serve` holds no request
 * list): {@link note} each request in order, {@link cut} at the first fault.
 */
export class ActivityLog {
  private requests = 0;
  private calls = 0;
  private reconnects = 0;
  private readonly cursors: string[] = [];
  private cursorDropped = 0;
  private maxGets = 0;
  private initializes = 0;
  private otherPaths = 0;
  private cutAt: number | null = null;
  /** Per session: the times of its GETs in the last second (after the cut). */
  private readonly windows = new Map<string, number[]>();
  /** Per call stream: what was served on it (the newest {@link maxStreams} streams). */
  private readonly served = new Map<string, string[]>();
  /** Per session, the newest {@link maxStreams}: what it did. */
  private readonly bySession = new Map<string, SessionActivity>();

  constructor(private readonly maxStreams = 64) {}

  /** The first fault happened at `t` (ms since start); GETs from then on count as retries. */
  cut(t: number): void {
    this.cutAt ??= t;
  }

  /** When the first fault happened, if it did. */
  get cutTime(): number | null {
    return this.cutAt;
  }

  /** The record of session `id` (created, and the oldest dropped beyond the bound). */
  private session(id: string): SessionActivity {
    let a = this.bySession.get(id);
    if (a === undefined) {
      a = {
        session: id,
        calls: [],
        reconnects: 0,
        cursors: [],
        cursorDropped: 0,
        maxGetsPerSecond: 0,
      };
      this.bySession.set(id, a);
      if (this.bySession.size > this.maxStreams) {
        this.bySession.delete(this.bySession.keys().next().value!);
      }
    }
    return a;
  }

  note(r: SeenRequest): void {
    this.requests++;
    if (r.path !== undefined) {
      this.otherPaths++;
      return;
    }
    const mine = r.session !== undefined ? this.session(r.session) : undefined;
    if (r.rpc === 'tools/call' && r.tool === 'count') {
      this.calls++;
      if (r.stream !== undefined && mine && mine.calls.length < MAX_CURSORS)
        mine.calls.push(r.stream);
    }
    if (r.rpc === 'initialize') this.initializes++;
    if (r.method !== 'GET') return;
    if (r.cursor) {
      this.reconnects++;
      if (this.cursors.length < MAX_CURSORS) this.cursors.push(r.cursor);
      if (mine) {
        mine.reconnects++;
        if (mine.cursors.length < 16) mine.cursors.push(r.cursor);
      }
    }
    if (this.cutAt === null || r.t < this.cutAt) return;
    if (!r.cursor) {
      this.cursorDropped++;
      if (mine) mine.cursorDropped++;
    }
    const key = r.session ?? '';
    const w = (this.windows.get(key) ?? []).filter((t) => r.t - t < 1000);
    w.push(r.t);
    this.windows.set(key, w);
    this.maxGets = Math.max(this.maxGets, w.length);
    if (mine) mine.maxGetsPerSecond = Math.max(mine.maxGetsPerSecond, w.length);
    if (this.windows.size > 1024) {
      for (const [k, ts] of this.windows) if (r.t - ts.at(-1)! >= 1000) this.windows.delete(k);
    }
  }

  /** Records that `item` (`c1#3`, `c1:result`) was written on `stream`'s connection. */
  serve(stream: string, item: string): void {
    let list = this.served.get(stream);
    if (list === undefined) {
      list = [];
      this.served.set(stream, list);
      if (this.served.size > this.maxStreams) this.served.delete(this.served.keys().next().value!);
    }
    list.push(item);
  }

  /** Each session that called `count`, oldest first. */
  sessions(): SessionActivity[] {
    return [...this.bySession.values()]
      .filter((a) => a.calls.length > 0)
      .map((a) => ({ ...a, calls: [...a.calls], cursors: [...a.cursors] }));
  }

  activity(): ClientActivity {
    return {
      requests: this.requests,
      calls: this.calls,
      reconnects: this.reconnects,
      cursors: [...this.cursors],
      cursorDropped: this.cursorDropped,
      maxGetsPerSecond: this.maxGets,
      initializes: this.initializes,
      otherPaths: this.otherPaths,
      served: Object.fromEntries([...this.served].map(([k, v]) => [k, [...v]])),
    };
  }
}

/** Sums up `seen` (in order), the first fault at `cutAt`. */
export function activityOf(seen: readonly SeenRequest[], cutAt: number | null): ClientActivity {
  const log = new ActivityLog();
  if (cutAt !== null) log.cut(cutAt);
  for (const r of seen) log.note(r);
  return log.activity();
}

/** The activity as one line. */
export function describeActivity(a: ClientActivity): string {
  const cursors = a.cursors.length
    ? ` (cursors ${[...new Set(a.cursors)].slice(0, 4).join(', ')})`
    : '';
  return (
    `${a.calls} call${a.calls === 1 ? '' : 's'} of count${a.calls > 1 ? ' (re-issued)' : ''}, ` +
    `${a.reconnects} reconnect${a.reconnects === 1 ? '' : 's'}${cursors}` +
    (a.cursorDropped ? `, ${a.cursorDropped} GET(s) without the cursor after the cut` : '') +
    `, at most ${a.maxGetsPerSecond} GET/s after the cut, ${a.initializes} initialize` +
    (a.otherPaths ? `, ${a.otherPaths} request(s) to other paths (404)` : '')
  );
}

/** More GETs than this in one second (in one session, after the cut) is a retry storm. */
export const STORM_PER_SECOND = 10;

/**
 * The first break in one call's sequence (`items`: `c1#1`, …, `c1:result`, in order): a message
 * after a missing one, or the result without every message; `null` when there is none.
 */
export function sequenceGap(tag: string, items: readonly string[]): string | null {
  let next = 1;
  for (const d of items) {
    if (d === `${tag}:result`) {
      return next === HOSTILE_N + 1
        ? null
        : `${tag}'s result after ${tag}#${next - 1}, ${next}..${HOSTILE_N} never`;
    }
    const i = Number(d.slice(tag.length + 1));
    if (i === next) next++;
    else if (i > next) return `${tag}#${i} after ${tag}#${next - 1}, ${next}..${i - 1} never`;
  }
  return null;
}

/** What the wire shows of one client (session) in `serve`: a verdict, or what it hinges on. */
export interface WireVerdict {
  session: string;
  /** A client verdict, or two joined by "or" when only what the client showed can tell. */
  verdict: string;
  observed: string;
}

/**
 * Judges one session from the wire alone (`serve` sees no client output): what it was served on
 * its last call, its reconnects, its GETs per second, and whether it still waited on a stream
 * when the server stopped. Where the answer hinges on what the client showed (an error surfaced
 * or not), the verdict names both and the line says which is which.
 */
export function wireVerdict(
  scenario: HostileScenario,
  a: SessionActivity,
  served: Readonly<Record<string, readonly string[]>>,
  waiting: boolean,
): WireVerdict {
  const last = a.calls.at(-1)!;
  const got = served[last] ?? [];
  const gap = sequenceGap(last, got);
  const shown = got.length <= 10 ? got.join(' ') : `${got.slice(0, 10).join(' ')} …`;
  const cursors = a.cursors.length
    ? ` (cursors ${[...new Set(a.cursors)].slice(0, 4).join(', ')})`
    : '';
  const what =
    `${a.calls.length} call(s) of count (${a.calls.join(', ')}), ${a.reconnects} reconnect(s)` +
    `${cursors}, at most ${a.maxGetsPerSecond} GET/s after the cut; served on ${last}: ${shown || 'nothing'}`;
  const v = (verdict: string, why: string): WireVerdict => ({
    session: a.session,
    verdict,
    observed: `${why}; ${what}`,
  });
  if (a.maxGetsPerSecond > STORM_PER_SECOND)
    return v('retry storm', 'more than 10 GETs in one second');
  const foreign = scenario.name === 'cross-stream' && a.reconnects > 0 && served.x9 !== undefined;
  if (gap === null && got.includes(`${last}:result`)) {
    return v('honored', 'served the whole call: honored if the client delivered all of it');
  }
  if (waiting) {
    return v(
      'endless wait',
      'still waiting on a stream when the server stopped: an endless wait unless the client bounds it',
    );
  }
  if (foreign || gap !== null) {
    return v(
      'rejected or silent gap',
      `it was served ${foreign ? "another stream's events" : gap}: right only if the client ` +
        'surfaced an error (a client that delivered what came after: silent gap)',
    );
  }
  return v(
    'rejected or dropped call',
    'the call never ended on the wire and the client left: right only if it surfaced an error',
  );
}

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

/** Messages of each call. */
export const HOSTILE_N = 8;
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
