/**
 * The erratum of docs/spec-changes.md, "A refusal of a resume GET fails the call", reproduced:
 * a 2025-11-25 call whose stream breaks after ids 1 and 2, against a server upgraded to
 * 2026-07-28 during the call, which answers the resume GET (`Last-Event-ID: 2`) with 405. The
 * SDK clients (1.32.2 and 2.4.0) read the 405 as "the server offers no SSE stream" and return
 * silently: `Client.callTool` waits for its own request timeout and fails with "Request timed
 * out", as a slow tool would. The call's request timeout is short here (1.5 s) so the test is
 * quick; with the default (60 s) the call waits 60 s.
 *
 * No wall-clock bound is asserted: the order of what happened (the 405 answered, then the
 * timeout error and nothing else) is the finding.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, test } from 'vitest';

/** What the server saw, in order. */
type Seen = { method: string; lastEventId?: string; status: number; rpc?: string; at: number };

const SESSION = 'mixed-era-session';

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A 2025-11-25 server that is upgraded to 2026-07-28 while a call runs: `initialize` and the
 * call's stream speak 2025-11-25 (ids 1 and 2, then the connection drops); every GET is then
 * answered 405, as 2026-07-28 (Backward Compatibility › Earlier Streamable HTTP Revisions) asks.
 */
function mixedEraServer(seen: Seen[]): Server {
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const lastEventId = req.headers['last-event-id'];
      if (req.method !== 'POST') {
        res.writeHead(405, { Allow: 'POST' }).end();
        seen.push({
          method: req.method ?? '?',
          ...(typeof lastEventId === 'string' ? { lastEventId } : {}),
          status: 405,
          at: Date.now(),
        });
        return;
      }
      const msg = JSON.parse(await bodyOf(req)) as { id?: number; method: string };
      const entry: Seen = { method: 'POST', rpc: msg.method, status: 200, at: Date.now() };
      seen.push(entry);
      if (msg.method === 'initialize') {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Mcp-Session-Id': SESSION });
        res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: msg.id,
            result: {
              protocolVersion: '2025-11-25',
              capabilities: { tools: {} },
              serverInfo: { name: 'mixed-era', version: '1.0.0' },
            },
          }),
        );
        return;
      }
      if (msg.id === undefined) {
        entry.status = 202;
        res.writeHead(202).end();
        return;
      }
      // The call: two progress notifications with ids 1 and 2, then the connection drops.
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Mcp-Session-Id': SESSION });
      for (const n of [1, 2]) {
        const note = {
          jsonrpc: '2.0',
          method: 'notifications/message',
          params: { level: 'info', data: `step ${n}` },
        };
        res.write(`id: ${n}\ndata: ${JSON.stringify(note)}\n\n`);
      }
      setTimeout(() => res.destroy(), 50);
    })();
  });
}

const REQUEST_TIMEOUT_MS = 1_500;
const RECONNECTION = {
  initialReconnectionDelay: 20,
  maxReconnectionDelay: 100,
  reconnectionDelayGrowFactor: 1.5,
  maxRetries: 2,
};

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

async function listen(seen: Seen[]): Promise<string> {
  server = mixedEraServer(seen);
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

/** Runs one `callTool` and returns how it ended. */
async function callOnce(
  kind: 'v1' | 'v2',
  url: string,
): Promise<{ error: unknown; at: number; transportErrors: unknown[] }> {
  const info = { name: 'erratum-repro', version: '1.0.0' };
  const transportErrors: unknown[] = [];
  let call: Promise<unknown>;
  let close: () => Promise<void>;
  if (kind === 'v1') {
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      reconnectionOptions: RECONNECTION,
    });
    const client = new Client(info);
    await client.connect(transport);
    transport.onerror = (e) => transportErrors.push(e);
    call = client.callTool({ name: 'count', arguments: {} }, undefined, {
      timeout: REQUEST_TIMEOUT_MS,
    });
    close = () => client.close();
  } else {
    const transport = new TransportV2(new URL(url), { reconnectionOptions: RECONNECTION });
    const client = new ClientV2(info);
    await client.connect(transport);
    transport.onerror = (e) => transportErrors.push(e);
    call = client.callTool({ name: 'count', arguments: {} }, { timeout: REQUEST_TIMEOUT_MS });
    close = () => client.close();
  }
  try {
    await call;
    return { error: null, at: Date.now(), transportErrors };
  } catch (error) {
    return { error, at: Date.now(), transportErrors };
  } finally {
    await close().catch(() => {});
  }
}

describe('erratum: a 405 to a resume GET leaves the SDK call waiting for its timeout', () => {
  test.each(['v1', 'v2'] as const)(
    'SDK %s Client.callTool: the resume GET (Last-Event-ID 2) is answered 405, nothing is reported, then "Request timed out"',
    async (kind) => {
      const seen: Seen[] = [];
      const url = await listen(seen);
      const { error, at, transportErrors } = await callOnce(kind, url);

      // The client did resume: a GET with Last-Event-ID 2, answered 405.
      const resume = seen.find((s) => s.method === 'GET' && s.lastEventId === '2');
      expect(resume, JSON.stringify(seen)).toBeDefined();
      expect(resume!.status).toBe(405);
      // ... and the call learnt nothing from it: it ended only by its own request timeout,
      // after the 405 was answered (code -32001, "Request timed out"), as a slow tool's would.
      expect(resume!.at).toBeLessThanOrEqual(at);
      expect(error).toBeInstanceOf(Error);
      // SDK 1.x: McpError -32001 (RequestTimeout); SDK 2.x: SdkError 'REQUEST_TIMEOUT'.
      expect((error as { code?: unknown }).code).toBe(kind === 'v1' ? -32001 : 'REQUEST_TIMEOUT');
      expect((error as Error).message).toMatch(/Request timed out/);
      // The 405 itself was never reported: the transport returned silently ("no SSE stream").
      expect(transportErrors.map(String).filter((e) => /405/.test(e))).toEqual([]);
    },
  );
});
