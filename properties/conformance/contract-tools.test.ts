/**
 * `registerContractTools(server)` (issue 27, friction): one line puts the test tool contract on
 * an existing SDK `McpServer`, 1.x or 2.x, and the server can then be judged through
 * `conformance --url` like a server in any language. Without it, every cell is an error that
 * names the missing tool (misjudgment 6), so the test shows both.
 */
import { randomUUID } from 'node:crypto';
import { McpServer as McpServerV1 } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport as WebTransportV1 } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  McpServer as McpServerV2,
  WebStandardStreamableHTTPServerTransport as WebTransportV2,
} from '@modelcontextprotocol/server';
import { afterAll, describe, expect, test } from 'vitest';
import { registerContractTools } from '../../src/conformance/contract-tools.js';
import { serveFetch, type FetchHost } from '../../src/conformance/fetch-host.js';
import type { FlatCell } from '../../src/conformance/rendering/render.js';
import { CONTINUITY_ID_PATTERN, ContinuityEventStore } from '../../src/runtime/continuity-store.js';
import { runCli } from '../support/cli.js';

interface WebTransport {
  handleRequest(request: Request): Promise<Response>;
}

const hosts: FetchHost[] = [];
afterAll(async () => {
  await Promise.all(hosts.map((h) => h.close()));
});

/** An SDK server of generation `v`, a session per `initialize`, with or without the tools. */
async function sdkServer(v: 'v1' | 'v2', withTools: boolean): Promise<string> {
  const sessions = new Map<string, WebTransport>();
  async function newSession(): Promise<WebTransport> {
    const id = randomUUID();
    const options = {
      sessionIdGenerator: () => id,
      eventStore: new ContinuityEventStore({ capacity: 64 }),
    };
    if (v === 'v1') {
      const server = new McpServerV1({ name: 'v1', version: '1' });
      if (withTools) await registerContractTools(server);
      else server.registerTool('echo', { description: 'echo' }, () => ({ content: [] }));
      const t = new WebTransportV1(options);
      await server.connect(t);
      sessions.set(id, t);
      return t;
    }
    const server = new McpServerV2({ name: 'v2', version: '1' });
    if (withTools) await registerContractTools(server);
    else server.registerTool('echo', { description: 'echo' }, () => ({ content: [] }));
    const t = new WebTransportV2(options);
    await server.connect(t);
    sessions.set(id, t);
    return t;
  }
  const host = await serveFetch(async (request) => {
    const sid = request.headers.get('mcp-session-id');
    if (sid !== null) {
      const t = sessions.get(sid);
      return t ? t.handleRequest(request) : new Response(null, { status: 404 });
    }
    if (request.method !== 'POST') return new Response(null, { status: 400 });
    return (await newSession()).handleRequest(request);
  });
  hosts.push(host);
  return host.url;
}

async function cells(url: string, only: string[]): Promise<FlatCell[]> {
  const r = await runCli([
    'conformance',
    '--url',
    url,
    '--id-pattern',
    CONTINUITY_ID_PATTERN.source,
    '--only',
    only.join(','),
    '--json',
  ]);
  return (JSON.parse(r.out) as { cells: FlatCell[] }).cells;
}

describe('registerContractTools on an SDK McpServer', () => {
  test.each(['v1', 'v2'] as const)(
    'SDK %s: with the tools, honored through --url; without, the cell names the missing tool',
    async (v) => {
      const scenarios = ['within-window', 'two-sessions', 'finished-while-away'];
      for (const c of await cells(await sdkServer(v, true), scenarios)) {
        expect(c.verdict, `${c.scenario}: ${c.observed}`).toBe('honored');
      }
      const [bare] = await cells(await sdkServer(v, false), ['within-window']);
      expect(bare!.verdict).toBe('error');
      expect(bare!.observed).toMatch(/count.*not found/i);
      expect(bare!.observed).toMatch(/registerContractTools\(server\)/);
    },
    60_000,
  );
});
