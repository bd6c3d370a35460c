/**
 * Honest verdicts: an answer that does not let the harness run a scenario is `error` (with the
 * status and a body excerpt), not `hang`; no answer at all is `hang`; a stream whose events
 * carry no ids is named "not resumable", its reconnects are GETs without `Last-Event-ID` (never
 * described as a cursor), and that one missing capability is the cell's reason (`n/a`), not a
 * loss in every cell.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { describe, expect, test } from 'vitest';
import { listenLoopback } from '../../src/conformance/adapters/listen.js';
import { sdkV1Adapter, type StoreSpec } from '../../src/conformance/adapters/sdk.js';
import {
  cursorOfAnotherSession,
  HarnessError,
  NOT_RESUMABLE,
  NoAnswerError,
  OPAQUE_IDS,
  readerStallsThenDrains,
  renderCell,
  resumeWithinWindow,
  runCell,
  tally,
  resumeAfterRestart,
  type ImplementationAdapter,
  type StartOptions,
} from '../../src/conformance/index.js';
import type { EventStoreLike } from '../../src/conformance/stores.js';

type Handler = (
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  options: StartOptions,
) => void;

/** A hand-written HTTP server: `handler` decides every answer. */
function rawAdapter(name: string, handler: Handler): ImplementationAdapter {
  let http: Server | undefined;
  const sockets = new Set<Socket>();
  return {
    name,
    versions: {},
    idCodec: OPAQUE_IDS,
    capabilities: { evict: false, keepalive: true },
    setup: 'hand-written',
    async start(options) {
      http = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          handler(req, res, text ? (JSON.parse(text) as unknown) : undefined, options);
        });
      });
      http.on('connection', (s: Socket) => {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
      });
      return `http://127.0.0.1:${await listenLoopback(http)}/mcp`;
    },
    async restart() {},
    async evict() {},
    dropConnections() {
      for (const s of sockets) s.destroy();
    },
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => (http ? http.close(() => r()) : r()));
    },
  };
}

const MISMATCH = 'Bad Request: Unsupported protocol version';

/** Answers `initialize` (request `id`) as JSON, with session `s1`, speaking `version`. */
function answerInitialize(
  res: ServerResponse,
  id: number | undefined,
  version: string,
  name: string,
): void {
  res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' });
  res.end(
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      result: {
        protocolVersion: version,
        capabilities: { tools: {} },
        serverInfo: { name, version: '1' },
      },
    }),
  );
}

/** Initializes a session, then answers every request 400 (as a server pinned to an old version). */
const refusesAfterInitialize: Handler = (_req, res, body) => {
  const msg = body as { id?: number; method?: string } | undefined;
  if (msg?.method === 'initialize') {
    answerInitialize(res, msg.id, '2025-03-26', 'old');
  } else if (msg?.method === 'notifications/initialized') {
    res.writeHead(202).end();
  } else {
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: MISMATCH } }),
    );
  }
};

describe('error is not hang', () => {
  test.each([resumeWithinWindow, readerStallsThenDrains])(
    'a 400 to tools/call is error, with the status and the body, within milliseconds (%s)',
    async (scenario) => {
      // A hang would last the cell's whole bound (20 s here); an error comes as soon as the
      // 400 does. Half the bound tells them apart on a loaded 2-core machine too (the old
      // 1.5 s bound measured the machine's load more than the verdict).
      const cellTimeoutMs = 20_000;
      const cell = await runCell(
        { name: 'old', make: () => rawAdapter('old', refusesAfterInitialize) },
        scenario,
        { cellTimeoutMs },
      );
      expect(cell.verdict, cell.observed).toBe('error');
      expect(cell.observed).toContain('tools/call answered 400');
      expect(cell.observed).toContain(MISMATCH);
      expect(cell.ms).toBeLessThan(cellTimeoutMs / 2);
      expect(renderCell(cell)).toMatch(/^old × \S+: error\. Observed: could not run the scenario/);
      expect(tally([cell]).error).toBe(1);
    },
  );

  test('an initialize answered 4xx is error; one never answered is hang', async () => {
    const refused = await runCell(
      {
        name: 'refuses',
        make: () =>
          rawAdapter('refuses', (_q, res) => {
            res.writeHead(403, { 'content-type': 'text/plain' }).end('forbidden\nhere');
          }),
      },
      resumeWithinWindow,
    );
    expect(refused.verdict, refused.observed).toBe('error');
    expect(refused.observed).toContain(
      'initialize answered 403 (content-type text/plain): forbidden here',
    );

    const silent = await runCell(
      { name: 'silent', make: () => rawAdapter('silent', () => {}) },
      resumeWithinWindow,
      { timeoutMs: 300 },
    );
    expect(silent.verdict, silent.observed).toBe('hang');
    expect(silent.observed).toContain('no answer within the bound');
  });

  test('the errors carry what the cell shows', () => {
    const e = new HarnessError('tools/call answered 400 instead of an SSE stream', 400, 'x');
    expect(e.status).toBe(400);
    expect(e.message).toBe('tools/call answered 400 instead of an SSE stream: x');
    expect(new NoAnswerError('m')).toBeInstanceOf(Error);
  });
});

describe('a stream whose events carry no ids', () => {
  // The SDK 1.x transport without an event store: events carry no SSE ids.
  const noStore: StoreSpec = {
    label: 'no event store',
    codec: OPAQUE_IDS,
    evict: false,
    scope: 'none',
    make: () => undefined as unknown as EventStoreLike,
  };
  const entry = { name: 'sdk-v1+no-store', make: () => sdkV1Adapter(noStore) };

  test('is named not resumable; its reconnect is a GET without Last-Event-ID; the cell is n/a for that one reason', async () => {
    const cell = await runCell(entry, resumeWithinWindow);
    expect(cell.reconnects.length).toBeGreaterThan(0);
    expect(cell.reconnects.every((r) => r.cursor === null)).toBe(true);
    expect(cell.observed).toContain(`${NOT_RESUMABLE} (a GET without Last-Event-ID)`);
    // One missing capability, stated as the reason (once per row in the report), not a loss.
    expect(cell.verdict, cell.observed).toBe('n/a');
    expect(cell.reason).toBe(NOT_RESUMABLE);
    expect(cell.observed).not.toMatch(/\bcursor\b/);
    expect(
      cell.trace.some((l) => l.includes('"type":"reconnect"') && l.includes('"cursor":null')),
    ).toBe(true);
  });

  test('other-session has no cursor to send: n/a, and the reason says why', async () => {
    const cell = await runCell(entry, cursorOfAnotherSession);
    expect(cell.verdict, cell.observed).toBe('n/a');
    expect(cell.reason).toContain(NOT_RESUMABLE);
    expect(`${cell.observed} ${cell.reason}`).not.toMatch(/accepted a cursor/);
  });
});

describe('events without ids, and a 200 that loses for another reason', () => {
  /**
   * Events without ids; the call emits every message at once (ignoring holds) and never ends;
   * a GET is answered 200 and ended, whatever session it names (a restart changes nothing: the
   * server answers a session it cannot know).
   */
  const noIdsAnswersAnything: Handler = (req, res, body, options) => {
    const msg = body as
      | { id?: number; method?: string; params?: { arguments?: { tag: string; n: number } } }
      | undefined;
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end();
    } else if (msg?.method === 'initialize') {
      answerInitialize(res, msg.id, '2025-11-25', 'no-ids');
    } else if (msg?.method === 'tools/call') {
      const { tag, n } = msg.params!.arguments!;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let i = 1; i <= n; i++) {
        const params = { progressToken: 1, progress: i, total: n, message: `${tag}#${i}` };
        res.write(
          `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params })}\n\n`,
        );
        options.control.emitted(tag, i);
      }
    } else {
      res.writeHead(202).end();
    }
  };
  const entry = { name: 'no-ids', make: () => rawAdapter('no-ids', noIdsAnswersAnything) };

  test('within-window is n/a, not resumable; after-restart keeps its silent loss', async () => {
    const within = await runCell(entry, resumeWithinWindow);
    expect(within.verdict, within.observed).toBe('n/a');
    expect(within.reason).toBe(NOT_RESUMABLE);
    // A 200 for a session the restarted server cannot know is a loss with or without ids.
    const restart = await runCell(entry, resumeAfterRestart);
    expect(restart.verdict, restart.observed).toBe('silent loss');
    expect(restart.observed).toContain(NOT_RESUMABLE);
  });
});
