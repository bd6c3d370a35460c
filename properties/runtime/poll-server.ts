/**
 * An SDK 1.32.2 server that polls (SEP-1699, MCP 2025-11-25): `StreamableHTTPServerTransport`
 * with the project's `ContinuityEventStore` (one per session) and a `retryInterval`, and the
 * tool `count`, which ends its response stream `polls` times in one call
 * (`extra.closeSSEStream()`), sending a notification after every third close, then its result.
 * Two closes in a row leave a resumed stream that ends before any event: the SDK clients'
 * next reconnect then carries no `Last-Event-ID` (docs/conformance.md, finding 23). Loopback
 * only; every socket is destroyed on close.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ContinuityEventStore } from '../../src/runtime/index.js';
import { listenLoopback } from './hostile.js';

/** A running polling server. */
export interface PollServer {
  url: string;
  /** Every GET: its `Last-Event-ID` (`undefined`: none) and its status, once it is over. */
  gets: { lastEventId: string | undefined; status?: number }[];
  /** The notifications the tool sent, in order (what a faithful call delivers). */
  sent(): number[];
  close(): Promise<void>;
}

/** Starts a server whose tool `count` polls `polls` times, `retryMs` apart. */
export async function pollServer(polls: number, retryMs: number): Promise<PollServer> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const gets: PollServer['gets'] = [];
  const sent: number[] = [];
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const resumes = () => gets.filter((g) => g.lastEventId !== undefined).length;

  const session = async (): Promise<StreamableHTTPServerTransport> => {
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: new ContinuityEventStore(),
      retryInterval: retryMs,
      onsessioninitialized: (id) => void sessions.set(id, transport),
    });
    const server = new McpServer(
      { name: 'poll-server', version: '1.0.0' },
      { capabilities: { logging: {} } },
    );
    server.registerTool('count', { description: 'polls, then a result' }, async (extra) => {
      let note = 0;
      const notify = async () => {
        sent.push(++note);
        await extra.sendNotification({
          method: 'notifications/message',
          params: { level: 'info', data: note },
        });
      };
      await notify();
      for (let p = 1; p <= polls; p++) {
        extra.closeSSEStream?.();
        // Every close ends a stream: the next one waits until the client's reconnect (retryMs
        // later) reached the server and had time to be registered (bounded: 2 s).
        const by = Date.now() + 2_000;
        while (resumes() < p && Date.now() < by) await pause(retryMs);
        await pause(retryMs * 2);
        if (p % 3 === 0) await notify();
      }
      return { content: [{ type: 'text', text: `polled ${polls} times` }] };
    });
    await server.connect(transport);
    return transport;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (!transport) {
      if (req.method !== 'POST' || typeof id === 'string') return void res.writeHead(404).end();
      transport = await session();
    }
    if (req.method === 'GET') {
      const get: PollServer['gets'][number] = {
        lastEventId: req.headers['last-event-id'] as string | undefined,
      };
      gets.push(get);
      res.on('close', () => (get.status = res.statusCode));
    }
    await transport.handleRequest(req, res);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.socket?.destroy());
  });
  const listening = await listenLoopback(server);
  return {
    url: listening.url,
    gets,
    sent: () => [...sent],
    close: async () => {
      for (const t of sessions.values()) await t.close().catch(() => {});
      await listening.close();
    },
  };
}
