/**
 * The proxy of the false-alarm bench, between the clients and the SDK server (loopback HTTP):
 * it forwards every request as it came and can cut a session's call streams (the `tools/call`
 * POST's stream and its resumes, `GET` with `Last-Event-ID`) at any moment, as a network fault
 * does. For a failure call it answers the resume itself, or changes it on its way, the way a
 * failing server or store would: see {@link Fault}.
 */
import {
  createServer,
  request,
  Agent,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { Socket } from 'node:net';
import { listenLoopback } from '../../src/conformance/adapters/listen.js';

/**
 * The failure set. `skip`: the resume goes on with the cursor moved one event on, so the
 * store's replay skips the cursor's successor. `404`: the session is gone. `405`: a server
 * upgraded to 2026-07-28 mid-call. `eviction`: the store evicted the cursor (a small store and
 * more events than it keeps; the resume goes on unchanged). `empty-200`: a 200 that sends
 * nothing, not even an acknowledgment (no head), and stays open. `no-headers`: the resume is
 * accepted and never answered.
 */
export type Fault = 'skip' | '404' | '405' | 'eviction' | 'empty-200' | 'no-headers';

/** Every fault of the set, in the order reported. */
export const FAULTS: readonly Fault[] = [
  'skip',
  '404',
  '405',
  'eviction',
  'empty-200',
  'no-headers',
];

/** A failure call's plan, by session. */
interface Plan {
  fault: Fault;
  /** Resolves when the tool sent what the fault needs after the cut. */
  ready: Promise<void>;
  setReady: () => void;
  /** Resolves when the client cut the call's stream (see {@link CuttingProxy.cutCall}). */
  cut: Promise<void>;
  setCut: () => void;
  /** `performance.now()` when the fault was first applied to a resume. */
  appliedAt?: number;
}

/** The resume's cursor moved one event on (`<stream>-<seq>` or a bare number). */
export function skipCursor(cursor: string): string {
  const m = /^(.*?)(\d+)$/.exec(cursor);
  return m ? `${m[1]}${Number(m[2]) + 1}` : cursor;
}

/** How long a fault waits for its call's tool to be ready (a bound on every wait). */
const READY_WITHIN_MS = 10_000;

/** `p`, or nothing after {@link READY_WITHIN_MS}. */
async function bounded(p: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p, new Promise((r) => (timer = setTimeout(r, READY_WITHIN_MS)))]);
  clearTimeout(timer);
}

/** The cutting proxy. */
export class CuttingProxy {
  private server: Server | undefined;
  private readonly agent = new Agent({ keepAlive: true });
  /** Call streams open now, by session: cutting one destroys both its sockets. */
  private readonly open = new Map<string, Set<() => void>>();
  /** Every connection held (answered never, or with an empty 200): ended at close. */
  private readonly held = new Set<Socket>();
  private readonly plans = new Map<string, Plan>();
  /** Cuts asked for and how many found a stream to cut. */
  cuts = { asked: 0, landed: 0 };
  /** Ms from forwarding a resume (`GET` with `Last-Event-ID`) to the server's status line. */
  readonly resumeHeadersMs: number[] = [];

  /** The SDK server's port, where every request goes on to. */
  upstreamPort = 0;

  /** Starts listening; resolves to the proxy's URL. */
  async listen(): Promise<string> {
    this.server = createServer((req, res) => this.handle(req, res));
    const port = await listenLoopback(this.server);
    return `http://127.0.0.1:${port}/mcp`;
  }

  /** `session` is a failure call's: its resumes get `fault`. */
  plan(session: string, fault: Fault): void {
    let setReady = () => {};
    const ready = new Promise<void>((r) => (setReady = r));
    let setCut = () => {};
    const cut = new Promise<void>((r) => (setCut = r));
    this.plans.set(session, { fault, ready, setReady, cut, setCut });
  }

  /** The tool of `session`'s failure call is ready for its resume. */
  ready(session: string): void {
    this.plans.get(session)?.setReady();
  }

  /** Cuts the failure call of `session` (its client received what it needs) and tells its tool. */
  cutCall(session: string): void {
    this.cut(session);
    this.plans.get(session)?.setCut();
  }

  /** Resolves when the failure call of `session` was cut (at most {@link READY_WITHIN_MS}). */
  async wasCut(session: string): Promise<void> {
    const plan = this.plans.get(session);
    if (plan) await bounded(plan.cut);
  }

  /** When the fault of `session` was first applied (`performance.now()`), if it was. */
  appliedAt(session: string): number | undefined {
    return this.plans.get(session)?.appliedAt;
  }

  /** Cuts every call stream of `session` open now; `true` when there was one. */
  cut(session: string): boolean {
    this.cuts.asked++;
    const streams = this.open.get(session);
    if (!streams || streams.size === 0) return false;
    for (const destroy of [...streams]) destroy();
    this.cuts.landed++;
    return true;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const session = req.headers['mcp-session-id'];
    const cursor = req.headers['last-event-id'];
    const plan = typeof session === 'string' ? this.plans.get(session) : undefined;
    if (plan && req.method === 'GET' && typeof cursor === 'string') {
      void this.applyFault(plan, cursor, req, res, session as string);
      return;
    }
    const callStream = req.method === 'POST' || typeof cursor === 'string';
    this.forward(req, res, callStream && typeof session === 'string' ? session : undefined);
  }

  private async applyFault(
    plan: Plan,
    cursor: string,
    req: IncomingMessage,
    res: ServerResponse,
    session: string,
  ): Promise<void> {
    await bounded(plan.ready);
    plan.appliedAt ??= performance.now();
    switch (plan.fault) {
      case '404':
        return void res.writeHead(404).end();
      case '405':
        return void res.writeHead(405, { allow: 'POST' }).end();
      case 'empty-200':
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        res.flushHeaders();
        return this.hold(req.socket);
      case 'no-headers':
        return this.hold(req.socket);
      case 'skip':
        req.headers['last-event-id'] = skipCursor(cursor);
        return this.forward(req, res, session);
      case 'eviction':
        return this.forward(req, res, session);
    }
  }

  private hold(socket: Socket): void {
    this.held.add(socket);
    socket.once('close', () => this.held.delete(socket));
  }

  /** Forwards `req` upstream and the answer back; a call stream's is registered for cuts. */
  private forward(req: IncomingMessage, res: ServerResponse, session: string | undefined): void {
    const up = request({
      host: '127.0.0.1',
      port: this.upstreamPort,
      method: req.method,
      path: req.url,
      headers: req.headers,
      agent: this.agent,
    });
    let streams: Set<() => void> | undefined;
    const destroy = () => {
      streams?.delete(destroy);
      up.destroy();
      req.socket.destroy();
    };
    if (session !== undefined) {
      streams = this.open.get(session) ?? new Set();
      this.open.set(session, streams);
      streams.add(destroy);
    }
    const done = () => streams?.delete(destroy);
    const sentAt = performance.now();
    const resume = req.method === 'GET' && req.headers['last-event-id'] !== undefined;
    res.once('close', done);
    up.on('error', () => {
      done();
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    up.on('response', (answer) => {
      if (resume) this.resumeHeadersMs.push(performance.now() - sentAt);
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      res.flushHeaders();
      answer.pipe(res);
      answer.on('error', () => res.destroy());
    });
    req.pipe(up);
  }

  /** Stops listening and ends every connection. */
  async close(): Promise<void> {
    for (const streams of this.open.values()) for (const destroy of [...streams]) destroy();
    for (const s of this.held) s.destroy();
    this.agent.destroy();
    const server = this.server;
    this.server = undefined;
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  }
}
