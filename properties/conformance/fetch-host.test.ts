/**
 * `serveFetch`, the kit's host for servers written against the Web `Request`/`Response` API:
 * event-stream headers go out before the first event (a held call is not a silent server),
 * a client that goes away aborts the request, and a real Web-standard MCP server
 * (fixtures/fetch-server-adapter.ts) runs every scenario through `conformance --adapter`
 * without silent loss, leak or hang.
 */
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { serveFetch } from '../../src/conformance/fetch-host.js';
import type { FlatCell } from '../../src/conformance/rendering/render.js';
import { SCENARIOS } from '../../src/conformance/scenarios/index.js';
import { runCli } from '../support/cli.js';

const MODULE = fileURLToPath(new URL('./fixtures/fetch-server-adapter.ts', import.meta.url));

test('event-stream headers are flushed at once; a client that leaves aborts the request', async () => {
  let aborted!: () => void;
  const gone = new Promise<void>((r) => (aborted = r));
  const host = await serveFetch((request) => {
    request.signal.addEventListener('abort', () => aborted());
    // A stream that writes nothing yet: only the headers can reach the client.
    const body = new ReadableStream<Uint8Array>({ start() {} });
    return new Response(body, { headers: { 'content-type': 'text/event-stream', 'x-a': '1' } });
  });
  try {
    expect(host.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const controller = new AbortController();
    const res = await fetch(host.url, { signal: controller.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-a')).toBe('1');
    controller.abort();
    await gone;
  } finally {
    await host.close();
  }
});

test('a POST body reaches the handler; a throwing handler is a 500', async () => {
  const host = await serveFetch(async (request) => {
    const text = await request.text();
    if (text === 'boom') throw new Error('boom');
    return Response.json({ got: text, method: request.method });
  });
  try {
    const ok = await fetch(host.url, { method: 'POST', body: 'hello' });
    expect(await ok.json()).toEqual({ got: 'hello', method: 'POST' });
    const bad = await fetch(host.url, { method: 'POST', body: 'boom' });
    expect(bad.status).toBe(500);
  } finally {
    await host.close();
  }
});

test('a Web-standard MCP server through --adapter: no silent loss, leak or hang', async () => {
  const r = await runCli(['conformance', '--adapter', MODULE, '--json']);
  const cells = (JSON.parse(r.out) as { cells: FlatCell[] }).cells;
  expect(cells.map((c) => c.scenario)).toEqual(SCENARIOS.map((s) => s.name));
  for (const c of cells) {
    expect(['silent loss', 'leak', 'hang', 'error'], `${c.scenario}: ${c.observed}`).not.toContain(
      c.verdict,
    );
  }
  expect(r.code).toBe(0);
}, 120_000);
