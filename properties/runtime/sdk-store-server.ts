/**
 * An honest SDK 1.32.2 server with the project's own store: the Node
 * `StreamableHTTPServerTransport` (one session) with a `ContinuityEventStore`, and a low-level
 * `Server` whose tools are scripted by the test. What a real application runs, for tests that
 * go through `Client.callTool`: a tool that answers with a JSON-RPC error, one that answers with
 * a result, and `tools/list` with the annotations the test gives. Loopback only.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { ContinuityEventStore } from '../../src/runtime/index.js';

/** One tool of the server: `error` answers with a JSON-RPC error, else a result. */
export interface ScriptedTool {
  name: string;
  annotations?: Record<string, unknown>;
  /** The JSON-RPC error code this tool answers with (a result when absent). */
  error?: number;
  /** The error's `data`. */
  errorData?: unknown;
}

/** A running server. */
export interface StoreServer {
  url: string;
  /** Every request the server saw: method and `Last-Event-ID`. */
  seen: { method: string; lastEventId: string | undefined }[];
  /** How many times each tool ran. */
  runs: Map<string, number>;
  close(): Promise<void>;
}

/** Starts the server with `tools`. */
export async function storeServer(tools: ScriptedTool[]): Promise<StoreServer> {
  const runs = new Map<string, number>();
  const seen: StoreServer['seen'] = [];
  const server = new Server(
    { name: 'store-server', version: '1.0.0' },
    { capabilities: { tools: {}, logging: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.map((t) => ({
      name: t.name,
      inputSchema: { type: 'object' as const },
      ...(t.annotations ? { annotations: t.annotations } : {}),
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const tool = tools.find((t) => t.name === req.params.name);
    runs.set(req.params.name, (runs.get(req.params.name) ?? 0) + 1);
    await extra.sendNotification({
      method: 'notifications/message',
      params: { level: 'info', data: 1 },
    });
    if (!tool || tool.error !== undefined) {
      throw new McpError(
        tool?.error ?? -32602,
        `tool ${req.params.name} refused the call`,
        tool?.errorData,
      );
    }
    return { content: [{ type: 'text', text: 'done' }] };
  });
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    eventStore: new ContinuityEventStore() as never,
  });
  await server.connect(transport);
  const sockets = new Set<Socket>();
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    seen.push({
      method: req.method ?? '',
      lastEventId: req.headers['last-event-id'] as string | undefined,
    });
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const parsed = body ? (JSON.parse(body) as unknown) : undefined;
      transport.handleRequest(req, res, parsed).catch(() => res.socket?.destroy());
    });
  });
  http.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const port = (http.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seen,
    runs,
    close: async () => {
      await transport.close().catch(() => {});
      await server.close().catch(() => {});
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}
