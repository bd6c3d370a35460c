/**
 * The README's server (issue 39, I4: it was a fragment, one transport and no server) runs as
 * it stands: the block after `<!-- recipe: readme-server -->` is extracted, its
 * `mcp-resumption/runtime` import pointed at the sources, and it is started on a free loopback
 * port (`PORT=0`). An SDK 1.x `Client` behind `continuityGuard` then calls its tool and gets
 * every progress notification and the result; a request for a session it does not hold is a
 * 404; and a resume of the call's stream is answered with the store's acknowledgment and the
 * cursor's successor.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { continuityGuard } from '../../src/runtime/index.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TMP = `${ROOT}properties/.api-examples/`;

let httpServer: Server;
let url: URL;

beforeAll(async () => {
  const readme = await readFile(`${ROOT}README.md`, 'utf8');
  const m = /<!-- recipe: readme-server -->\s*```js\n([\s\S]*?)```/.exec(readme);
  expect(m, 'the README keeps its server block').not.toBeNull();
  const code =
    m![1]!.replace(/from 'mcp-resumption\/runtime'/g, `from '../../src/runtime/index.js'`) +
    '\nexport { httpServer };\n';
  await mkdir(TMP, { recursive: true });
  await writeFile(`${TMP}readme-server.mjs`, code);
  const before = process.env.PORT;
  process.env.PORT = '0';
  try {
    ({ httpServer } = (await import(`${TMP}readme-server.mjs`)) as { httpServer: Server });
  } finally {
    if (before === undefined) delete process.env.PORT;
    else process.env.PORT = before;
  }
  if (!httpServer.listening) await new Promise((r) => httpServer.once('listening', r));
  const { address, port } = httpServer.address() as AddressInfo;
  expect(address).toBe('127.0.0.1');
  url = new URL(`http://127.0.0.1:${port}/mcp`);
});

afterAll(async () => {
  httpServer?.closeAllConnections();
  await new Promise((r) => httpServer?.close(r));
});

describe("the README's server", () => {
  test('a guarded SDK client calls its tool and gets every progress notification and the result', async () => {
    const failures: unknown[] = [];
    const transport = new StreamableHTTPClientTransport(url, {
      fetch: continuityGuard(fetch, { idleTimeoutMs: 60_000, onFailure: (e) => failures.push(e) }),
    });
    const client = new Client({ name: 'readme-test', version: '1.0.0' });
    await client.connect(transport);
    const progress: number[] = [];
    const result = await client.callTool({ name: 'work', arguments: { steps: 3 } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    expect(result.content).toEqual([{ type: 'text', text: '3 steps done' }]);
    expect(progress).toEqual([1, 2, 3]);
    expect(failures).toEqual([]);
    await client.close();
  });

  test('a session it does not hold is a 404, and a body that is not JSON a 400', async () => {
    const lost = await fetch(url, {
      method: 'GET',
      headers: { accept: 'text/event-stream', 'mcp-session-id': 'not-a-session' },
      signal: AbortSignal.timeout(10_000),
    });
    expect(lost.status).toBe(404);
    const bad = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{',
      signal: AbortSignal.timeout(10_000),
    });
    expect(bad.status).toBe(400);
  });

  test('a resume is answered by the store: its acknowledgment, then the successor', async () => {
    const post = (body: unknown, session?: string) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
          ...(session === undefined ? {} : { 'mcp-session-id': session }),
        },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
      },
    });
    const session = init.headers.get('mcp-session-id')!;
    await init.text();
    await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).text();
    const call = await post(
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'work', arguments: { steps: 3 }, _meta: { progressToken: 'p' } },
      },
      session,
    );
    const callText = await call.text();
    const ids = [...callText.matchAll(/^id: (\S+)$/gm)].map((x) => x[1]!);
    expect(ids.length, callText).toBe(4); // three progress notifications and the result
    const resume = await fetch(url, {
      method: 'GET',
      headers: {
        accept: 'text/event-stream',
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-06-18',
        'last-event-id': ids[0]!,
      },
      signal: AbortSignal.timeout(10_000),
    });
    expect(resume.status).toBe(200);
    const reader = resume.body!.getReader();
    let text = '';
    while (!text.includes(`id: ${ids[1]}\n`)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    await reader.cancel();
    const ack = text.indexOf('notifications/mcp-resumption/replay');
    expect(ack, text).toBeGreaterThanOrEqual(0);
    expect(text.indexOf(`id: ${ids[1]}\n`), text).toBeGreaterThan(ack);
  });
});
