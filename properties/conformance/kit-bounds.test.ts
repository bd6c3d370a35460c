/**
 * Bounds of the kit's own commands (issue 38), each test failing before its fix: timers above
 * 2^31-1 ms (Node fires them after 1 ms) refused with one line, exit 2; `serve`'s memory bounded
 * for a long life (it kept every session, call and request).
 */
import { describe, expect, test } from 'vitest';
import { startHostileServer, hostileScenario } from '../../src/conformance/hostile-server.js';
import { runCli } from '../support/cli.js';

describe('timers above 2^31-1 ms are refused (issue 38)', () => {
  test.each([
    [
      ['serve', '--scenario', 'honest', '--for', '3000000000'],
      /^--for must be at most 2147483647 ms/,
    ],
    [
      ['conformance', '--client-cmd', 'true', '--client-timeout', '3000000000'],
      /^--client-timeout must be at most 2147483647 ms/,
    ],
    [
      ['conformance', '--url', 'http://127.0.0.1:1/mcp', '--timeout', '2147483648'],
      /^--timeout must be at most/,
    ],
    [
      ['conformance', '--url', 'http://127.0.0.1:1/mcp', '--idle', '2147483648'],
      /^--idle must be at most/,
    ],
    [
      ['conformance', '--url', 'http://127.0.0.1:1/mcp', '--hook-timeout', '2147483648'],
      /^--hook-timeout must be at most/,
    ],
    [
      ['conformance', '--url', 'http://127.0.0.1:1/mcp', '--keepalive-ms', '134217728'],
      /^--keepalive-ms must be at most 134217727 ms/,
    ],
    [
      ['conformance', '--binding', 'mcp-tasks', '--reference', '--timeout', '3000000000'],
      /^--timeout must be at most 2147483647 ms/,
    ],
  ])('%j: one line, exit 2', async (argv, message) => {
    const r = await runCli(argv);
    expect(r.code, r.out + r.err).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.err.trimEnd().split('\n')).toHaveLength(1);
  });
});

/** POSTs `body` as JSON-RPC to `url`; the status and the session header. */
async function rpc(url: string, body: unknown, session?: string) {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(session ? { 'mcp-session-id': session } : {}),
    },
    body: JSON.stringify(body),
  });
  await res.text();
  return { status: res.status, session: res.headers.get('mcp-session-id') ?? undefined };
}

describe('serve keeps bounded state (issue 38)', () => {
  test('sessions, call streams and the request list are the newest few; the counts are whole', async () => {
    const server = await startHostileServer(hostileScenario('honest')!, {
      keep: { sessions: 4, calls: 2, requests: 10 },
    });
    try {
      const sessions: string[] = [];
      for (let i = 0; i < 12; i++) {
        const r = await rpc(server.url, {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {},
        });
        sessions.push(r.session!);
      }
      const ping = { jsonrpc: '2.0', id: 2, method: 'ping' };
      expect((await rpc(server.url, ping, sessions[0])).status).toBe(404);
      expect((await rpc(server.url, ping, sessions[11])).status).toBe(200);
      for (let i = 0; i < 3; i++) {
        const call = { jsonrpc: '2.0', id: 3 + i, method: 'tools/call', params: { name: 'count' } };
        expect((await rpc(server.url, call, sessions[11])).status).toBe(200);
      }
      expect(server.seen.length).toBe(10);
      const a = server.activity();
      expect(a.initializes).toBe(12);
      expect(a.calls).toBe(3);
      expect(a.requests).toBe(17);
      expect(Object.keys(a.served)).toEqual(['c2', 'c3']);
    } finally {
      await server.close();
    }
  });
});
