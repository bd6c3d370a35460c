/**
 * The own-adapter example of docs/conformance.md in TypeScript, run against the sources of the
 * public entries (`mcp-resumption/conformance` and `mcp-resumption/runtime`): plugging one's
 * own server into the harness with nothing but what the package exports. The JavaScript form
 * the docs show is run from the packed package by packed-install.test.ts.
 */
import { expect, test } from 'vitest';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import {
  patternCodec,
  runCell,
  runCount,
  SCENARIOS,
  TOOL_NAME,
  type CountArgs,
  type ImplementationAdapter,
  type StartOptions,
} from '../../src/conformance/index.js';
import { CONTINUITY_ID_PATTERN, ContinuityEventStore } from '../../src/runtime/index.js';

/** My server: SDK 1.x transport, my event store, my routing. */
function myServerAdapter(): ImplementationAdapter {
  let http: Server | undefined;
  const sockets = new Set<Socket>();
  let sessions = new Map<string, StreamableHTTPServerTransport>();
  let options!: StartOptions;

  // 1. Serve the harness's test tool `count` (it emits N numbered progress notifications).
  async function newSession(): Promise<StreamableHTTPServerTransport> {
    const server = new McpServer({ name: 'my-server', version: '1.0.0' });
    server.registerTool(
      TOOL_NAME,
      {
        inputSchema: {
          tag: z.string(),
          n: z.number(),
          holds: z.array(z.number()).optional(),
          pad: z.number().optional(),
          pauseMs: z.number().optional(),
          gapMs: z.number().optional(),
        },
      },
      (args, extra) =>
        runCount(
          args as CountArgs,
          extra._meta?.progressToken,
          (params) => extra.sendNotification({ method: 'notifications/progress', params }),
          options.control,
        ),
    );
    const id = randomUUID();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      eventStore: new ContinuityEventStore({ capacity: options.retention }),
      keepAliveMs: options.keepAliveMs,
    });
    await server.connect(transport);
    sessions.set(id, transport);
    return transport;
  }

  // 2. Route requests: known session → its transport, unknown → 404, initialize → new session.
  async function route(req: IncomingMessage, res: ServerResponse) {
    let body: unknown;
    if (req.method === 'POST') {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    }
    const sid = req.headers['mcp-session-id'] as string | undefined;
    const transport = sid
      ? sessions.get(sid)
      : req.method === 'POST'
        ? await newSession()
        : undefined;
    if (!transport) {
      res.writeHead(sid ? 404 : 400).end();
      return;
    }
    await transport.handleRequest(req, res, body);
  }

  // 3. The adapter: start (URL), restart (state lost), evict, cut connections, stop.
  return {
    name: 'my-server',
    versions: { 'my-server': '1.0.0' },
    idCodec: patternCodec(CONTINUITY_ID_PATTERN),
    capabilities: { evict: true, keepalive: true },
    setup: 'SDK 1.x transport + ContinuityEventStore per session',
    async start(o) {
      options = o;
      http = createServer((req, res) => void route(req, res));
      http.on('connection', (s: Socket) => {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
      });
      await new Promise<void>((r) => http!.listen(0, '127.0.0.1', r));
      const { port } = http.address() as { port: number };
      return `http://127.0.0.1:${port}/mcp`;
    },
    async restart() {
      await Promise.all([...sessions.values()].map((t) => t.close()));
      sessions = new Map();
      this.dropConnections();
    },
    async evict() {
      // retention is options.retention (capacity per stream)
    },
    dropConnections() {
      for (const s of sockets) s.destroy();
    },
    async stop() {
      await this.restart();
      await new Promise<void>((r) => (http ? http.close(() => r()) : r()));
    },
  };
}

// 4. Run every scenario against it.
test('my server: no silent loss, leak or hang', async () => {
  for (const scenario of SCENARIOS) {
    const cell = await runCell({ name: 'my-server', make: myServerAdapter }, scenario);
    expect(['silent loss', 'leak', 'hang'], `${scenario.name}: ${cell.observed}`).not.toContain(
      cell.verdict,
    );
  }
});
