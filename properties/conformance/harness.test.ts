/**
 * The harness itself against hostile servers (an endless stream, a 10 MB event, a server that
 * accepts and never answers): every wait ends within its bound and memory stays bounded; and an
 * end-to-end kill through the real SDK client: a cursor-skipping store is caught by the guard
 * and is silent loss without it. Plus the `conformance` command's surface.
 *
 * No wall-clock assertions (these machines are noisy): each bound is shown by the outcome only
 * its timer or cap can produce ('timeout', an event-size error), and a hang fails on the
 * per-test timeout of the hostile-server block.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { CommandIO } from '../../src/commands/cli-kit.js';
import { main } from '../../src/cli.js';
import { sdkV1Adapter } from '../../src/conformance/adapters/sdk.js';
import { CLIENT_SCENARIOS, runClientCell } from '../../src/conformance/rows/client-rows.js';
import { idReaderFromPattern } from '../../src/runtime/continuity-guard.js';
import { RecordingClient, TraceRecorder } from '../../src/conformance/recording/recorder.js';
import { CallFollower } from '../../src/conformance/recording/call-follower.js';
import { DOC_BEGIN, DOC_END } from '../../src/conformance/rows/report.js';
import { request } from '../../src/conformance/recording/sse-client.js';
import { groundTruth, owed, verdictOf } from '../../src/conformance/scenarios/truth.js';
import {
  OPAQUE_IDS,
  patternCodec,
  type Delivered,
  type ReconnectObservationRecord,
} from '../../src/conformance/types.js';
import {
  CONTINUITY_ID_PATTERN,
  ContinuityEventStore,
  type StoredMessage,
} from '../../src/index.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const sockets = new Set<Socket>();
  const server: Server = createServer(handler);
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  });
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`;
}

const SSE = { 'content-type': 'text/event-stream' };

describe('hostile servers: the harness stays bounded', { timeout: 30_000 }, () => {
  test('an endless stream of events: the read stops at its bound, bytes capped', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, SSE);
      let i = 1;
      const more = () => {
        while (!res.destroyed) {
          if (!res.write(`id: ${i++}\ndata: {"jsonrpc":"2.0","method":"x"}\n\n`)) {
            return void res.once('drain', more);
          }
        }
      };
      more();
    });
    const answer = await request(fetch, url, { method: 'GET', headers: {} }, 1000, {
      maxBytes: 2 * 1024 * 1024,
    });
    expect(answer.kind).toBe('sse');
    if (answer.kind !== 'sse') return;
    const f = new CallFollower(new TraceRecorder(OPAQUE_IDS));
    const stop = await f.read(answer.stream, () => false, 500, true, [], 1500);
    answer.stream.abort();
    expect(['timeout', 'error']).toContain(stop);
  });

  test('a 10 MB event: cut at the event limit, in bounded time', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, SSE);
      res.end(`id: 1\ndata: "${'x'.repeat(10 * 1024 * 1024)}"\n\n`);
    });
    const answer = await request(fetch, url, { method: 'GET', headers: {} }, 1000, {
      maxEventBytes: 1024 * 1024,
    });
    if (answer.kind !== 'sse') throw new Error(answer.kind);
    let r = await answer.stream.next(2000);
    while (r.kind === 'comment') r = await answer.stream.next(2000);
    expect(r.kind).toBe('error');
  });

  test('a server that accepts and never answers: a timeout, never a hung harness', async () => {
    const sockets = new Set<Socket>();
    const tcp: TcpServer = createTcpServer((s) => sockets.add(s)); // accepts, says nothing
    await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r));
    closers.push(async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => tcp.close(() => r()));
    });
    const url = `http://127.0.0.1:${(tcp.address() as { port: number }).port}/mcp`;
    const answer = await request(fetch, url, { method: 'GET', headers: {} }, 300);
    expect(answer.kind).toBe('timeout');
    await expect(new RecordingClient(url, 300).initialize()).rejects.toThrow(/timeout/);
  });
});

/** A store that replays from cursor+2: one owed message silently skipped. */
class SkippingStore extends ContinuityEventStore {
  override async replayEventsAfter(
    lastEventId: string,
    h: { send: (id: string, m: StoredMessage) => Promise<void> },
  ): Promise<string> {
    let skipped = false;
    return super.replayEventsAfter(lastEventId, {
      send: async (id, m) => {
        if (id !== '' && !skipped) {
          skipped = true;
          return;
        }
        await h.send(id, m);
      },
    });
  }
}

test('kill, end to end: the SDK client with the guard refuses a cursor-skipping server; bare, it loses a message', async () => {
  const make = () =>
    sdkV1Adapter({
      label: 'skipping store',
      codec: patternCodec(CONTINUITY_ID_PATTERN),
      evict: true,
      scope: 'one store per session',
      make: (o) => new SkippingStore({ capacity: o.retention }),
    });
  const within = CLIENT_SCENARIOS.find((s) => s.name === 'within-window')!;
  const entry = (guard: boolean) => ({
    name: guard ? 'guarded' : 'bare',
    client: 'v1' as const,
    make,
    guard,
    pattern: CONTINUITY_ID_PATTERN,
    readId: idReaderFromPattern(CONTINUITY_ID_PATTERN),
  });
  const bare = await runClientCell(entry(false), within);
  const guarded = await runClientCell(entry(true), within);
  expect(bare.verdict, bare.observed).toBe('silent loss');
  expect(guarded.verdict, guarded.observed).toBe('rejected');
  expect(guarded.observed).toContain('skip');
});

describe('mcp-resumption conformance', () => {
  const io = () => {
    const out: string[] = [];
    const err: string[] = [];
    const sink: CommandIO = { out: (t) => void out.push(t), err: (t) => void err.push(t) };
    return { out, err, sink };
  };

  test('--help documents the verdicts and options', async () => {
    const { out, sink } = io();
    expect(await main(['conformance', '--help'], sink)).toBe(0);
    expect(out.join('')).toMatch(/silent loss[\s\S]*--only[\s\S]*--write/);
  });

  test.each([[['--bogus']], [['--only', 'no-such-scenario']]])(
    'bad input %j is one line and exit status 2',
    async (args) => {
      const { err, sink } = io();
      expect(await main(['conformance', ...args], sink)).toBe(2);
      expect(err.join('').trim().split('\n')).toHaveLength(1);
    },
  );

  test('--only one scenario on one row: the matrix, then --json, then --write', async () => {
    const args = ['conformance', '--only', 'within-window,sdk-v1+continuity'];
    const text = io();
    expect(await main(args, text.sink)).toBe(0);
    expect(text.out.join('')).toMatch(/sdk-v1\+continuity\s+2025-11-25\s+honored/);
    expect(text.out.join('')).toMatch(/@modelcontextprotocol\/sdk 1\.32/);

    const json = io();
    expect(await main([...args, '--json'], json.sink)).toBe(0);
    const report = JSON.parse(json.out.join('')) as { servers: { verdict: string }[] };
    expect(report.servers.map((c) => c.verdict)).toEqual(['honored']);

    const dir = await mkdtemp(join(tmpdir(), 'conformance-'));
    const file = join(dir, 'doc.md');
    await writeFile(file, `# t\n\n${DOC_BEGIN}\nold\n${DOC_END}\n\nafter\n`);
    expect(await main([...args, '--write', file], io().sink)).toBe(0);
    const doc = await readFile(file, 'utf8');
    expect(doc).toMatch(/\| sdk-v1\+continuity +\| 2025-11-25 +\| honored/);
    expect(doc).not.toContain('old');
    expect(doc).toContain('after');
  });
});

describe('ground truth and verdicts, each able to fail', () => {
  const rec = (status: number | null, delivered: Delivered[]): ReconnectObservationRecord => ({
    cursor: 'c',
    status,
    ending: 'complete',
    delivered,
  });
  const d = (index: number | 'result', tag = 'A'): Delivered => ({ tag, index });
  const owedA = owed('A', 3, 5); // A#4, A#5, A:result

  test.each([
    ['everything, in order', rec(200, [d(4), d(5), d('result')]), 'honored'],
    ['one lost', rec(200, [d(4), d('result')]), 'silent loss'],
    ['one twice', rec(200, [d(4), d(4), d(5), d('result')]), 'silent loss'],
    ['the cursor replayed again', rec(200, [d(3), d(4), d(5), d('result')]), 'silent loss'],
    ['out of order', rec(200, [d(5), d(4), d('result')]), 'silent loss'],
    ["another call's message", rec(200, [d(4), d(5), d(1, 'B'), d('result')]), 'leak'],
    ['a refusal', rec(400, []), 'rejected'],
    ['no answer', rec(null, []), 'hang'],
  ] as const)('%s → %s', (_w, r, want) => {
    expect(verdictOf(r, groundTruth(owedA, r.delivered, new Set(['A'])))).toBe(want);
  });
});

test('kill: a naive idle timer (wall clock) mistakes the busy application for silence', async () => {
  const stall = CLIENT_SCENARIOS.find((s) => s.name === 'reader-stall')!;
  const entry = (idleClock: 'network' | 'wall') => ({
    name: `guard (${idleClock})`,
    client: 'v1' as const,
    make: () => sdkV1Adapter('continuity'),
    guard: true,
    pattern: CONTINUITY_ID_PATTERN,
    readId: idReaderFromPattern(CONTINUITY_ID_PATTERN),
    guardOptions: { idleClock },
  });
  const network = await runClientCell(entry('network'), stall);
  expect(network.observed).toContain('resumes: 0');
  // The kill needs the busy loop to fall while the stream is still read. On a loaded machine
  // (load 20 on 2 cores) the whole call was once read before it began, and the naive timer had
  // nothing to misjudge: the kill is asked of one of three runs (the network clock, of every one).
  let wall = await runClientCell(entry('wall'), stall);
  for (let k = 0; k < 2 && wall.observed.includes('resumes: 0'); k++) {
    wall = await runClientCell(entry('wall'), stall);
  }
  expect(wall.observed).not.toContain('resumes: 0');
});
