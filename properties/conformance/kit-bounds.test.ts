/**
 * Bounds of the kit's own commands (issue 38), each test failing before its fix: timers above
 * 2^31-1 ms (Node fires them after 1 ms) refused with one line, exit 2; `serve`'s memory bounded
 * for a long life (it kept every session, call and request).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { serveCommand } from '../../src/commands/serve.js';
import { startHostileServer, hostileScenario } from '../../src/conformance/hostile-server.js';
import { runCli } from '../support/cli.js';

const NAIVE = fileURLToPath(new URL('./fixtures/naive-client.mjs', import.meta.url));

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

/** `serve --scenario NAME --for MS` in process; runs `client(url)` once the URL is out. */
async function serveWith(
  name: string,
  forMs: number,
  client: (url: string) => Promise<unknown>,
): Promise<string> {
  let out = '';
  let onUrl: (url: string) => void = () => {};
  const url = new Promise<string>((r) => (onUrl = r));
  const done = serveCommand.run(['serve', '--scenario', name, '--for', String(forMs)].slice(1), {
    out: (t) => {
      out += t;
      const m = /^(http:\/\/127\.0\.0\.1:\d+\/mcp)\n/.exec(out);
      if (m) onUrl(m[1]!);
    },
    err: () => {},
  });
  await client(await url);
  expect(await done).toBe(0);
  return out;
}

/** Runs the naive client fixture in MODE against `url`; resolves when it exits. */
function naive(mode: string) {
  return (url: string) =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [NAIVE], {
        env: { ...process.env, MCP_URL: url, MODE: mode },
        stdio: 'ignore',
      });
      child.on('close', resolve);
    });
}

describe('serve prints a verdict line per client (issue 38)', () => {
  test('one line per session that called count, judged from the wire', async () => {
    const honest = await serveWith('honest', 1500, naive('exit'));
    expect(honest).toMatch(/^client 1 \(session \w{8}\): honored\. served the whole call/m);
    const skip = await serveWith('skip', 1500, naive('quiet'));
    expect(skip).toMatch(
      /^client 1 \(session \w{8}\): rejected or silent gap\. it was served c1's result after c1#5, 6\.\.8 never/m,
    );
    const none = await serveWith('honest', 10, async () => {});
    expect(none).toMatch(/^no client called count$/m);
  }, 30_000);
});
