/**
 * The kit against servers (and adapters) that answer in ways it has never seen: each test is an
 * answer a real server gave, and what the cell must then say (issue 19, items 1, 4, 6, 8, 9,
 * 10), plus the flat `cells` list of `--json` and `HoldControl.releaseTag`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import { listenLoopback } from '../../src/conformance/adapters/listen.js';
import { urlAdapter } from '../../src/conformance/adapters/url.js';
import { compareOracle, runCell, type JudgedCell } from '../../src/conformance/rows/matrix.js';
import { RecordingClient } from '../../src/conformance/recording/recorder.js';
import { RemoteControl } from '../../src/conformance/remote-control.js';
import type { FlatCell } from '../../src/conformance/rendering/render.js';
import { resumeWithinWindow } from '../../src/conformance/scenarios/index.js';
import { request } from '../../src/conformance/recording/sse-client.js';
import { HoldControl } from '../../src/conformance/tool.js';
import { ControlChannelError, OPAQUE_IDS } from '../../src/conformance/types.js';
import { checkTrace } from '../../src/trace/check.js';
import { runCli } from '../support/cli.js';

const REJECTING = fileURLToPath(new URL('./fixtures/rejecting-adapter.ts', import.meta.url));

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((s) => {
      s.closeAllConnections();
      return new Promise((r) => s.close(r));
    }),
  );
});

/** A loopback HTTP server answering with `handler`; its URL. */
async function serve(
  handler: (req: IncomingMessage, res: ServerResponse, body: string) => void,
): Promise<string> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => handler(req, res, body));
  });
  servers.push(server);
  const port = await listenLoopback(server);
  return `http://127.0.0.1:${port}/mcp`;
}

const INIT_RESULT = {
  protocolVersion: '2025-11-25',
  capabilities: { tools: {} },
  serverInfo: { name: 'hostile', version: '1' },
};

describe('answers the kit must name', () => {
  test('item 4: SSE served as application/json is an error cell with status, content type and body', async () => {
    const url = await serve((_req, res, body) => {
      const id = (JSON.parse(body || '{}') as { id?: number }).id ?? null;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, result: INIT_RESULT })}\n\n`,
      );
    });
    const r = await runCli(['conformance', '--url', url, '--only', 'within-window', '--json']);
    const cell = (JSON.parse(r.out) as { cells: FlatCell[] }).cells[0]!;
    expect(cell.verdict).toBe('error');
    expect(cell.observed).toMatch(/initialize answered 200 \(content-type application\/json\)/);
    expect(cell.observed).toMatch(/event: message data: \{"jsonrpc"/);
  });

  test('item 9: a redirect is never followed; the cell is an error naming the Location', async () => {
    let elsewhere = 0;
    const other = await serve((_req, res) => {
      elsewhere++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
    const url = await serve((_req, res) => {
      res.writeHead(307, { location: other });
      res.end();
    });
    const r = await runCli([
      'conformance',
      '--url',
      url,
      '--only',
      'within-window,two-sessions',
      '--json',
    ]);
    const cells = (JSON.parse(r.out) as { cells: FlatCell[] }).cells;
    expect(cells).toHaveLength(2);
    for (const c of cells) {
      expect(c.verdict).toBe('error');
      expect(c.observed).toContain(`answered 307 redirecting to "${other}"`);
    }
    expect(elsewhere).toBe(0);
  });

  test('item 10: a non-SSE body is capped at 16 MiB', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1 << 20, 0x20);
      let sent = 0;
      const pump = () => {
        while (sent < 40 && !res.destroyed) {
          sent++;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('error', () => {});
      pump();
    });
    const answer = await request(fetch, url, { method: 'POST', headers: {}, body: '{}' }, 10_000);
    expect(answer.kind).toBe('error');
    expect(answer.kind === 'error' && answer.message).toMatch(/body larger than 16777216 bytes/);
  });

  test("item 6: a control answer that is not its request's is a control-channel error, never a verdict", async () => {
    // Answers every tool call with id 2, as a server that routes answers by id across
    // sessions hands the control session another request's answer.
    const url = await serve((req, res, body) => {
      const msg = JSON.parse(body || '{}') as {
        id?: unknown;
        method?: string;
        params?: { name?: string; arguments?: { tag?: string } };
      };
      if (msg.method === 'initialize') {
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' });
        return void res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: INIT_RESULT }));
      }
      if (msg.id === undefined) return void res.writeHead(202).end();
      if (msg.params?.name === 'count') {
        const tag = msg.params.arguments?.tag ?? 'A';
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (let i = 1; i <= 3; i++) {
          const note = {
            jsonrpc: '2.0',
            method: 'notifications/progress',
            params: { progressToken: 1, progress: i, total: 6, message: `${tag}#${i}` },
          };
          res.write(`id: ${i}\ndata: ${JSON.stringify(note)}\n\n`);
        }
        return; // held: the stream stays open
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 2,
          result: { content: [{ type: 'text', text: 'released' }] },
        }),
      );
    });
    const control = new RemoteControl(url, 2000, '2025-11-25');
    await expect(control.release('A', 4)).rejects.toBeInstanceOf(ControlChannelError);
    await control.close();
    const cell = await runCell(
      { name: 'misrouting', make: () => urlAdapter({ url, hookTimeoutMs: 2000 }) },
      resumeWithinWindow,
      { timeoutMs: 2000, idleMs: 200 },
    );
    expect(cell.verdict).toBe('error');
    expect(cell.observed).toMatch(
      /^control channel: count_release .*answered with id 2, not "ctl-/,
    );
  });
});

describe('item 1: no reconnect, no blame on the oracle', () => {
  test('a cell that ended before any reconnect says what happened', async () => {
    const trace = [
      JSON.stringify({ type: 'open', status: 200 }),
      JSON.stringify({ type: 'event', id: 1 }),
      JSON.stringify({ type: 'idle-timeout' }),
    ];
    const report = await checkTrace(trace, {});
    for (const verdict of ['hang', 'error', 'leak'] as const) {
      const cell: JudgedCell = {
        implementation: 'x',
        scenario: 'other-stream',
        verdict,
        observed: 'call B: message 3 never came',
        reconnects: [],
        trace,
        ms: 1,
      };
      const view = compareOracle(cell, report, OPAQUE_IDS);
      expect(view.agrees).toBe(true);
      expect(view.note).not.toMatch(/oracle wrong/);
      expect(view.note).toBe(
        `no reconnect happened, so no resumption for the oracle to judge: the cell is ${verdict} (call B: message 3 never came)`,
      );
    }
  });
});

describe('item 8: an adapter that leaves a rejection', () => {
  test('the cell is an error with the reason, and the --json report is written', async () => {
    // Without a listener a rejection ends a Node process; vitest's own listener would hide
    // that, so it is set aside and a quiet one stands in while the CLI runs.
    const saved = process.listeners('unhandledRejection');
    process.removeAllListeners('unhandledRejection');
    const escaped: unknown[] = [];
    const sentinel = (reason: unknown) => escaped.push(reason);
    process.on('unhandledRejection', sentinel);
    let r;
    try {
      r = await runCli([
        'conformance',
        '--adapter',
        REJECTING,
        '--only',
        'within-window',
        '--json',
      ]);
    } finally {
      process.off('unhandledRejection', sentinel);
      for (const l of saved) process.on('unhandledRejection', l);
    }
    const report = JSON.parse(r.out) as { cells: FlatCell[] };
    expect(report.cells).toHaveLength(1);
    const cell = report.cells[0]!;
    expect(cell.verdict).toBe('error');
    expect(cell.reason).toBe('metrics exporter failed: ECONNREFUSED 127.0.0.1:9464');
    expect(cell.observed).toMatch(/rejected with nobody listening: metrics exporter failed/);
    expect(r.code).toBe(0);
  });
});

describe('--json cells and HoldControl.releaseTag', () => {
  test('--json has a flat cells list beside servers, one per cell, with the verdict and whether it failed', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('boom');
    });
    const r = await runCli([
      'conformance',
      '--url',
      url,
      '--only',
      'within-window,reader-stall',
      '--json',
    ]);
    const report = JSON.parse(r.out) as { servers: JudgedCell[]; cells: FlatCell[] };
    expect(report.cells.map((c) => [c.scenario, c.verdict, c.failed])).toEqual([
      ['within-window', 'error', false],
      ['reader-stall', 'n/a', false],
    ]);
    expect(report.cells[0]!.observed).toMatch(
      /initialize answered 500 \(content-type text\/plain\): boom/,
    );
    expect(report.cells[1]!.reason).toMatch(/--keepalive-ms/);
    expect(report.servers).toHaveLength(2);
  });

  test('releaseTag frees every hold of one call, present and future, and no other', async () => {
    const hold = new HoldControl(60_000);
    const done: string[] = [];
    const a4 = hold.beforeEmit('A', 4).then(() => done.push('A4'));
    void hold.beforeEmit('B', 4).then(() => done.push('B4'));
    await hold.releaseTag('A');
    await a4;
    await hold.beforeEmit('A', 7); // a future hold of A: already released
    await new Promise((r) => setImmediate(r));
    expect(done).toEqual(['A4']);
    await hold.releaseAll();
  });
});

describe('sessionless servers', () => {
  test('item 3: initialize without Mcp-Session-Id is accepted', async () => {
    const url = await serve((_req, res, body) => {
      const msg = JSON.parse(body || '{}') as { id?: unknown };
      if (msg.id === undefined) return void res.writeHead(202).end();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: INIT_RESULT }));
    });
    const c = new RecordingClient(url, 2000);
    await c.initialize();
    expect(c.sessionId).toBeUndefined();
    expect(c.negotiatedVersion).toBe('2025-11-25');
  });
});
