/**
 * The server of `npm run bench client-cpu`, run in a process of its own so that the client's
 * CPU time is measured alone: a loopback MCP endpoint that answers `initialize` with a session,
 * notifications with 202, the standalone GET with 405, and a `tools/call` with one SSE stream of
 * `N` progress notifications for the call's progress token (ids 1..N) and then its result. It
 * prints its port on stdout and ends when its stdin closes.
 */
import { createServer, type ServerResponse } from 'node:http';

const N = Number(process.argv[2] ?? 100_000);
/** Events per write: the stream goes out in large chunks, as a busy server writes. */
const PER_WRITE = 512;

function event(id: number, data: unknown): string {
  return `id: ${id}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Writes `N` progress notifications for `token`, then the result of request `id`. */
async function stream(res: ServerResponse, id: unknown, token: unknown): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (let from = 1; from <= N; from += PER_WRITE) {
    let text = '';
    for (let i = from; i < from + PER_WRITE && i <= N; i++) {
      const params = { progressToken: token, progress: i, total: N };
      text += event(i, { jsonrpc: '2.0', method: 'notifications/progress', params });
    }
    if (!res.write(text)) await new Promise((r) => res.once('drain', r));
  }
  const result = { content: [{ type: 'text', text: `${N} notifications` }] };
  res.end(event(N + 1, { jsonrpc: '2.0', id, result }));
}

const server = createServer((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    if (req.method === 'GET') return void res.writeHead(405, { allow: 'POST' }).end();
    if (req.method !== 'POST') return void res.writeHead(200).end();
    let m: {
      id?: unknown;
      method?: string;
      params?: { protocolVersion?: string; _meta?: { progressToken?: unknown } };
    };
    try {
      m = JSON.parse(body) as typeof m;
    } catch {
      return void res.writeHead(400).end();
    }
    if (m.id === undefined) return void res.writeHead(202).end();
    const reply = (result: unknown) =>
      void res
        .writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'cpu-bench' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }));
    if (m.method === 'initialize') {
      return reply({
        protocolVersion: m.params?.protocolVersion ?? '2025-11-25',
        capabilities: { tools: {} },
        serverInfo: { name: 'client-cpu-bench', version: '1.0.0' },
      });
    }
    if (m.method === 'tools/call') {
      void stream(res, m.id, m.params?._meta?.progressToken ?? null);
      return;
    }
    reply({});
  });
});

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as { port: number }).port}\n`);
});
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
