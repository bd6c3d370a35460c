/**
 * Two instances of one MCP server behind a round-robin front, without session stickiness:
 * each HTTP request goes to the next instance in turn. Each instance is an HTTP server of its
 * own (the 2.x `WebStandardStreamableHTTPServerTransport`, bridged to `node:http`), with either
 * a per-instance in-memory `ContinuityEventStore` (sessions live where they were created) or
 * the shared `RedisContinuityEventStore`, with a session registry in Redis from which an
 * instance adopts a session it did not create, and a following replay that forwards the events
 * the other instance writes.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import {
  createServer,
  request as httpRequest,
  type ClientRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { Socket } from 'node:net';
import { WebStandardStreamableHTTPServerTransport as WebTransportV2 } from '@modelcontextprotocol/server';
import { createClient } from 'redis';
import {
  CONTINUITY_ID_PATTERN,
  ContinuityEventStore,
  type EventStoreLike,
  type StoredMessage,
} from '../../runtime/continuity-store.js';
import { ReplayFence } from '../../runtime/replay-fence.js';
import {
  adoptSession,
  EventStoreUnavailableError,
  InstanceHeartbeat,
  RedisContinuityEventStore,
  resumeResponse,
  SessionRegistry,
  type RedisClient,
} from '../../redis/index.js';
import { DelayedEventStore } from '../stores.js';
import { patternCodec, type ImplementationAdapter, type StartOptions } from '../types.js';
import { packageVersion } from '../versions.js';
import { jsonError, readPostBody } from './host.js';
import { listenLoopback, serveLoopback } from './listen.js';
import { REDIS_INSTALL_HINT, startRedis, type RedisHandle } from './redis-server.js';
import { sendWebResponse, toWebRequest } from './sdk.js';
import { v2ToolServer } from './tool-servers.js';

/** Which store the instances share (`redis`) or keep each to itself (`memory`). */
export type MultiStoreKind = 'memory' | 'redis';

/** A store that can be muted (during an adoption's replayed handshake, nothing is stored). */
class Mutable implements EventStoreLike {
  muted = false;
  constructor(readonly inner: EventStoreLike) {}
  async storeEvent(streamId: string, message: StoredMessage): Promise<string> {
    return this.muted ? '' : this.inner.storeEvent(streamId, message);
  }
  replayEventsAfter(
    lastEventId: string,
    sink: { send: (eventId: string, message: StoredMessage) => Promise<void> },
  ): Promise<string> {
    return this.inner.replayEventsAfter(lastEventId, sink);
  }
}

interface Session {
  transport: WebTransportV2;
  /** The session's store epoch (`null`: in-memory store). */
  epoch: string | null;
  close(): Promise<void>;
}

/** One server instance: an HTTP server on its own port, its own sessions. */
class Instance {
  server: Server | undefined;
  port = 0;
  id = '';
  private readonly sockets = new Set<Socket>();
  private sessions = new Map<string, Promise<Session | null>>();
  private redis: RedisClient | undefined;
  private heartbeat: InstanceHeartbeat | undefined;
  /** When this instance last received a `tools/call` (to restart the one that runs a call). */
  lastToolCall = 0;

  constructor(
    readonly name: string,
    private readonly kind: MultiStoreKind,
    private readonly options: StartOptions,
    private readonly redisUrl: string | null,
    private readonly prefix: string,
    private readonly writerLiveness = true,
  ) {}

  async start(): Promise<void> {
    this.id = `${this.name}${randomBytes(3).toString('hex')}`;
    if (this.kind === 'redis') {
      const client = createClient({ url: this.redisUrl!, disableOfflineQueue: true });
      client.on('error', () => {});
      this.redis = (await client.connect()) as RedisClient;
      this.heartbeat = new InstanceHeartbeat(this.redis, this.id, 600, this.prefix);
      await this.heartbeat.start();
    }
    if (!this.server) {
      const { server, port } = await serveLoopback(
        (req, res) => this.route(req, res),
        this.sockets,
      );
      this.port = port;
      this.server = server;
    }
  }

  private registry(): SessionRegistry {
    return new SessionRegistry(this.redis!, this.prefix, 600);
  }

  private async newSession(sessionId: string, epoch: string | null): Promise<Session> {
    const o = this.options;
    let store: EventStoreLike;
    let inner: RedisContinuityEventStore | undefined;
    if (this.kind === 'memory') {
      store = new ContinuityEventStore({ capacity: o.retention });
    } else {
      const heartbeat = this.heartbeat!;
      inner = new RedisContinuityEventStore({
        client: this.redis!,
        epoch: epoch!,
        prefix: this.prefix,
        capacity: o.retention,
        ttlSeconds: 600,
        instanceId: this.id,
        follow: { blockMs: 150, maxMs: 60_000, writerAlive: (id) => heartbeat.alive(id) },
      });
      const ms = o.storeDelayMs ?? 0;
      store = ms > 0 ? new DelayedEventStore(inner, ms) : inner;
    }
    // A networked store, or a slowed one, goes behind the fence (docs/conformance.md).
    const fenced =
      this.kind === 'redis' || (o.storeDelayMs ?? 0) > 0 ? new ReplayFence(store) : store;
    const mutable = new Mutable(fenced);
    const server = v2ToolServer('conformance-multi', '2.0.0', o.control);
    const transport = new WebTransportV2({
      sessionIdGenerator: () => sessionId,
      eventStore: mutable as never,
      keepAliveMs: o.keepAliveMs,
    });
    await server.connect(transport);
    return Object.assign(
      {
        transport,
        epoch,
        close: async () => {
          inner?.close();
          await transport.close();
          await server.close();
        },
      },
      { mutable },
    );
  }

  /** The session `sid`: held here, adopted from the registry, or `null` (unknown). */
  private session(sid: string, version: string | undefined): Promise<Session | null> {
    let s = this.sessions.get(sid);
    if (!s) {
      s = (async () => {
        if (this.kind === 'memory') return null;
        const record = await this.registry().lookup(sid);
        if (!record) return null;
        const session = (await this.newSession(sid, record.epoch)) as Session & {
          mutable: Mutable;
        };
        session.mutable.muted = true;
        try {
          await adoptSession(session.transport, record, version);
        } finally {
          session.mutable.muted = false;
        }
        return session;
      })();
      this.sessions.set(sid, s);
      s.then(
        (x) => x === null && this.sessions.delete(sid),
        () => this.sessions.delete(sid),
      );
    }
    return s;
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const parsed = await readPostBody(req, res);
    if (parsed === null) return;
    const body = parsed.body;
    if ((body as { method?: unknown } | undefined)?.method === 'tools/call') {
      this.lastToolCall = Date.now();
    }
    const header = req.headers['mcp-session-id'];
    const sid = Array.isArray(header) ? header[0] : header;
    const v = req.headers['mcp-protocol-version'];
    const version = Array.isArray(v) ? v[0] : v;
    let session: Session | null;
    if (sid !== undefined) {
      try {
        session = await this.session(sid, version);
      } catch (e) {
        if (e instanceof EventStoreUnavailableError) {
          res.setHeader('retry-after', '1');
          return jsonError(res, 503, -32000, `Session store unavailable: ${e.message}`);
        }
        throw e;
      }
      if (!session) return jsonError(res, 404, -32001, 'Session not found');
    } else if (req.method === 'POST' && (body as { method?: unknown })?.method === 'initialize') {
      const id = randomUUID();
      const epoch = SessionRegistry.newEpoch();
      if (this.kind === 'redis') {
        await this.registry().register(id, {
          epoch,
          initialize: body as Record<string, unknown>,
          createdBy: this.id,
        });
      }
      const created = this.newSession(id, epoch);
      this.sessions.set(id, created);
      session = await created;
    } else {
      return jsonError(res, 400, -32000, 'Bad Request: No valid session ID provided');
    }
    const cursor = req.headers['last-event-id'];
    if (this.kind === 'redis' && req.method === 'GET' && typeof cursor === 'string') {
      // The 2.x transport ends a resumed stream whose request it does not hold (finding 18):
      // the resume is served from the shared store, outside the transport, on any instance.
      const delay = this.options.storeDelayMs ?? 0;
      if (delay > 0) await new Promise((r) => setTimeout(r, delay));
      const heartbeat = this.heartbeat!;
      const response = await resumeResponse(
        {
          client: this.redis!,
          epoch: session.epoch!,
          prefix: this.prefix,
          instanceId: this.id,
          keepAliveMs: this.options.keepAliveMs,
          sessionId: sid!,
          follow: {
            blockMs: 150,
            maxMs: this.writerLiveness ? 60_000 : 2_500,
            ...(this.writerLiveness ? { writerAlive: (id: string) => heartbeat.alive(id) } : {}),
          },
        },
        cursor,
      );
      return sendWebResponse(response, res);
    }
    const response = await session.transport.handleRequest(toWebRequest(req, body), {
      parsedBody: body,
    } as never);
    await sendWebResponse(response, res);
  }

  dropConnections(): void {
    for (const s of this.sockets) s.destroy();
  }

  /** Loses every process state, as a crash would (its liveness key expires on its own). */
  async crash(): Promise<void> {
    const sessions = [...this.sessions.values()];
    this.sessions = new Map();
    await this.heartbeat?.stop();
    for (const s of sessions) await s.then((x) => x?.close()).catch(() => {});
    this.dropConnections();
    this.redis?.destroy();
    this.redis = undefined;
  }

  async stop(): Promise<void> {
    await this.crash();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((r) => server.close(() => r()));
  }
}

/** A loopback HTTP front that sends each request to the next instance in turn. */
class RoundRobinFront {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly upstream = new Set<ClientRequest>();
  private next = 0;
  /** Which instance served each request, in order (`A`, `B`). */
  readonly routed: string[] = [];

  constructor(private readonly instances: Instance[]) {}

  async listen(): Promise<number> {
    const server = createServer((req, res) => this.forward(req, res));
    server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    const port = await listenLoopback(server);
    this.server = server;
    return port;
  }

  private forward(req: IncomingMessage, res: ServerResponse): void {
    const target = this.instances[this.next++ % this.instances.length]!;
    this.routed.push(target.name);
    const up = httpRequest({
      host: '127.0.0.1',
      port: target.port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, connection: 'close' },
      agent: false,
    });
    this.upstream.add(up);
    const done = () => this.upstream.delete(up);
    up.on('response', (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      res.flushHeaders();
      r.pipe(res);
      r.on('close', () => {
        done();
        if (!res.writableEnded) res.destroy();
      });
    });
    up.on('error', () => {
      done();
      if (!res.headersSent) jsonError(res, 502, -32000, `instance ${target.name} unreachable`);
      else res.destroy();
    });
    res.on('close', () => {
      if (!res.writableFinished) up.destroy();
    });
    req.pipe(up);
  }

  dropConnections(): void {
    for (const u of this.upstream) u.destroy();
    for (const s of this.sockets) s.destroy();
  }

  async close(): Promise<void> {
    this.dropConnections();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((r) => server.close(() => r()));
  }
}

/** Shared Redis for the multi-instance rows of one process (started on first use). */
let sharedRedis: Promise<RedisHandle> | undefined;

/**
 * The Redis the multi-instance rows use: `REDIS_URL`, else a `redis-server` of this process's
 * own (stopped at exit), else `null` (the rows are `n/a`, with the install hint).
 */
export function harnessRedis(): Promise<RedisHandle> {
  if (!sharedRedis) {
    sharedRedis = startRedis().then((h) => {
      if (h.url !== null && h.spawned) {
        process.once('exit', () => void h.stop());
      }
      return h;
    });
  }
  return sharedRedis;
}

/** Stops the Redis {@link harnessRedis} started (if any). */
export async function stopHarnessRedis(): Promise<void> {
  const h = await sharedRedis;
  sharedRedis = undefined;
  if (h?.url) await h.stop();
}

/** Two instances of the 2.x server behind a round-robin front (see the module comment). */
export class MultiInstanceAdapter implements ImplementationAdapter {
  readonly name: string;
  readonly versions: Record<string, string>;
  readonly idCodec = patternCodec(CONTINUITY_ID_PATTERN);
  readonly capabilities;
  readonly setup: string;
  private instances: Instance[] = [];
  private front: RoundRobinFront | undefined;

  /**
   * @param kind The store.
   * @param redisUrl The Redis URL (`kind` redis): a string, or `null` when there is none.
   * @param writerLiveness Follow the writer's liveness (default `true`; `false`: the mutant
   *   that never tells a client its stream's writer died).
   */
  constructor(
    readonly kind: MultiStoreKind,
    private readonly redisUrl: string | null = null,
    private readonly writerLiveness = true,
  ) {
    const v = packageVersion('@modelcontextprotocol/server');
    this.versions = {
      '@modelcontextprotocol/server': v,
      ...(kind === 'redis' ? { redis: packageVersion('redis') } : {}),
    };
    this.name = `server ${v} ×2 + ${kind === 'redis' ? 'RedisContinuityEventStore' : 'ContinuityEventStore per instance'}`;
    this.setup =
      kind === 'redis'
        ? 'two WebStandardStreamableHTTPServerTransport instances behind a round-robin front; RedisContinuityEventStore (one per session per instance, same epoch), session registry in Redis, adoption, following replay, ReplayFence'
        : 'two WebStandardStreamableHTTPServerTransport instances behind a round-robin front; ContinuityEventStore per session, in each instance';
    this.capabilities = {
      evict: true,
      keepalive: true,
      storeDelay: true,
      ...(kind === 'redis' && redisUrl === null
        ? { missing: { storeDelay: `no Redis: ${REDIS_INSTALL_HINT}` } }
        : {}),
    };
  }

  /** Which instance served each request so far. */
  get routed(): readonly string[] {
    return this.front?.routed ?? [];
  }

  async start(options: StartOptions): Promise<string> {
    if (this.kind === 'redis' && this.redisUrl === null) {
      throw new Error(`no Redis: ${REDIS_INSTALL_HINT}`);
    }
    const prefix = `mi${randomBytes(4).toString('hex')}`;
    this.instances = ['A', 'B'].map(
      (n) => new Instance(n, this.kind, options, this.redisUrl, prefix, this.writerLiveness),
    );
    for (const i of this.instances) await i.start();
    this.front = new RoundRobinFront(this.instances);
    const port = await this.front.listen();
    return `http://127.0.0.1:${port}/mcp`;
  }

  /** Restarts the instance that received the last `tools/call` (else A), losing its state. */
  async restart(): Promise<void> {
    const target = [...this.instances].sort((a, b) => b.lastToolCall - a.lastToolCall)[0]!;
    this.front?.dropConnections();
    await target.crash();
    await target.start();
  }

  async evict(): Promise<void> {
    // Retention is set through StartOptions.retention.
  }

  dropConnections(): void {
    this.front?.dropConnections();
    for (const i of this.instances) i.dropConnections();
  }

  async stop(): Promise<void> {
    await this.front?.close();
    for (const i of this.instances) await i.stop();
  }
}
