/**
 * The server of the false-alarm bench: an SDK 1.32.2 `McpServer` per session behind a
 * `StreamableHTTPServerTransport`, with the project's `ContinuityEventStore` or the Redis store
 * (one store per session, as the README's recipe and docs/stores.md give them), and one tool,
 * `work`: a few progress notifications, a silence (polled with SEP-1699's `closeSSEStream` when
 * the call asks for it), more notifications, and its result.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { listenLoopback } from '../../src/conformance/adapters/listen.js';
import { RedisContinuityEventStore, type RedisClient } from '../../src/redis/index.js';
import { ContinuityEventStore } from '../../src/runtime/index.js';

/** Which store the sessions get. */
export type StoreKind = 'memory' | 'redis';

/** The arguments of the `work` tool. */
export interface WorkArgs {
  /** Names the call. */
  tag: string;
  /** Notifications before the silence. */
  before: number;
  /** The silence (ms). */
  silenceMs: number;
  /** Notifications after the silence. */
  after: number;
  /** `> 0`: the server ends the call's stream (closeSSEStream) every so many ms of the silence. */
  pollEveryMs: number;
  /** A failure call: the tool asks the bench to cut the call's stream after `before` notifications. */
  fault?: boolean;
}

/** How a failure call's tool meets the bench at its fault point. */
export interface FaultHooks {
  /**
   * Resolves once the call's stream of `session` was cut (the client cuts it when it has
   * received the tool's first notifications): the tool then goes on with its stream gone.
   */
  cut(session: string): Promise<void>;
  /** The tool sent what the fault needs after the cut (the resume may go now). */
  ready(session: string): void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Events each session's store keeps: small for sessions whose client asks for eviction. */
const capacityOf = (clientName: string): number => (clientName.endsWith('-evict') ? 4 : 1024);

/** Notifications a failure call sends after the cut, before its resume may go on. */
export const AFTER_CUT = 10;

/** A running server. */
export interface BenchServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Starts the server on a free loopback port. `retryIntervalMs` > 0: the transports suggest it
 * (SSE `retry:`) in their priming events, as SEP-1699 polling servers do; `keepAliveMs`: the
 * transports' keepalive comments.
 */
export async function startBenchServer(opts: {
  store: StoreKind;
  redis?: RedisClient;
  retryIntervalMs: number;
  keepAliveMs: number;
  hooks: FaultHooks;
}): Promise<BenchServer> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const closers: (() => Promise<void>)[] = [];

  const newSession = async (clientName: string): Promise<StreamableHTTPServerTransport> => {
    const capacity = capacityOf(clientName);
    const eventStore =
      opts.store === 'memory'
        ? new ContinuityEventStore({ capacity })
        : new RedisContinuityEventStore({ client: opts.redis!, prefix: 'fa', capacity });
    const server = new McpServer({ name: 'false-alarm-bench', version: '1.0.0' });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore,
      keepAliveMs: opts.keepAliveMs,
      ...(opts.retryIntervalMs > 0 ? { retryInterval: opts.retryIntervalMs } : {}),
      onsessioninitialized: (id) => void transports.set(id, transport),
    });
    server.registerTool(
      'work',
      {
        description: 'notifications, a silence, notifications, a result',
        inputSchema: {
          tag: z.string(),
          before: z.number().int().min(0),
          silenceMs: z.number().int().min(0),
          after: z.number().int().min(0),
          pollEveryMs: z.number().int().min(0),
          fault: z.boolean().optional(),
        },
      },
      async (args: WorkArgs, extra) => {
        const token = extra._meta?.progressToken;
        let k = 0;
        const total = args.before + args.after + (args.fault ? AFTER_CUT : 0);
        const note = () =>
          extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token!, progress: ++k, total },
          });
        for (let i = 0; i < args.before; i++) await note();
        if (args.fault) {
          await opts.hooks.cut(extra.sessionId!);
          for (let i = 0; i < AFTER_CUT; i++) await note();
          opts.hooks.ready(extra.sessionId!);
        }
        const end = Date.now() + args.silenceMs;
        if (args.pollEveryMs > 0) {
          while (Date.now() < end) {
            extra.closeSSEStream?.();
            await sleep(Math.min(args.pollEveryMs, end - Date.now()));
          }
        } else await sleep(args.silenceMs);
        for (let i = 0; i < args.after; i++) await note();
        return { content: [{ type: 'text' as const, text: `${args.tag}:done:${k}` }] };
      },
    );
    await server.connect(transport);
    closers.push(async () => {
      await transport.close().catch(() => {});
      await server.close().catch(() => {});
    });
    return transport;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, raw: string) => {
    const session = req.headers['mcp-session-id'];
    let body: unknown;
    if (req.method === 'POST') {
      try {
        body = JSON.parse(raw);
      } catch {
        return void res.writeHead(400).end();
      }
    }
    if (typeof session === 'string') {
      const t = transports.get(session);
      if (!t) return void res.writeHead(404).end();
      return t.handleRequest(req, res, body);
    }
    const init = body as { method?: string; params?: { clientInfo?: { name?: string } } };
    if (req.method !== 'POST' || init?.method !== 'initialize') {
      return void res.writeHead(400).end();
    }
    const t = await newSession(init.params?.clientInfo?.name ?? '');
    return t.handleRequest(req, res, body);
  };

  const sockets = new Set<Socket>();
  const http: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      handle(req, res, raw).catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
        else res.destroy();
      });
    });
  });
  http.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const port = await listenLoopback(http);
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    close: async () => {
      await Promise.all(closers.map((c) => c()));
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}
