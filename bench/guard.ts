/**
 * `npm run bench guard`: continuityGuard's cost, as same-run ratios.
 * - CPU per event: the same stream of 100k events read through bare fetch, through a parsing
 *   pass-through (the floor, see {@link parsingPassThrough}) and through the guard, in
 *   alternating slices (bare, floor, guard, bare, floor, guard, ...; `BENCH_PAIRS` rounds), each
 *   slice's process CPU time (`process.cpuUsage()`: user + system, the loopback server included
 *   on every side) over its events; the figures are the medians of the rounds' guard/bare,
 *   floor/bare and guard/floor ratios. Target (issue 37): guard/floor at most 1.3, the guard's
 *   own work above the parse that any guard reading SSE pays (guard/bare at most 1.5 cannot be
 *   reached: the floor alone is about 1.5). A miss prints a `FAIL` line. Where users feel the
 *   cost, in an SDK `Client`, is `npm run bench client-cpu`.
 * - overhead: one loopback SSE stream of 100k events read through bare fetch and through the
 *   guard (the same reader, eventsource-parser): p50 and p99 of the time between consecutive
 *   events at the reader, and the whole read, guard over bare;
 * - memory: 100k completed streams (a POST answered with one event and the result) through the
 *   guard, in process (an in-memory fetch, so the network's own buffers do not blur it): heap
 *   after 10k and after 100k, and the streams the guard still holds.
 */
import { createServer } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createParser } from 'eventsource-parser';
import { continuityGuard, inspectGuard } from '../src/runtime/index.js';
import { medianRate, pairUp, pairsWanted, spread, type Slice } from './alternate.js';
import type { Bench } from './bench.js';

const N = 100_000;
/** The target: guard/floor, CPU per event (issue 37). */
const FLOOR_TARGET = 1.3;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

function gc(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/** Reads a stream of `N` events through `fetchFn`: the gaps between events (ms) and the total. */
async function readAll(url: string, fetchFn: typeof fetch) {
  const gaps: number[] = [];
  let last = 0;
  const parser = createParser({
    onEvent: () => {
      const now = performance.now();
      if (last) gaps.push(now - last);
      last = now;
    },
  });
  const t0 = performance.now();
  const res = await fetchFn(url, { method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"x"}' });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(decoder.decode(value, { stream: true }));
  }
  return { gaps, ms: performance.now() - t0 };
}

/** One slice: reads the stream once through `fetchFn`; its units are events, its secs CPU secs. */
async function cpuSlice(url: string, fetchFn: typeof fetch): Promise<Slice> {
  const before = process.cpuUsage();
  const { gaps } = await readAll(url, fetchFn);
  const used = process.cpuUsage(before);
  return { units: gaps.length + 1, secs: (used.user + used.system) / 1e6 };
}

/**
 * The floor of any guard that reads the events with eventsource-parser: a fetch wrapper that
 * decodes each chunk, feeds it to eventsource-parser, judges nothing, and forwards the server's
 * bytes unchanged (a pull stream like the guard's). What the guard costs above it is its own
 * work: the id-only rewrite and block ends (id-only-blocks.ts), the response check, reading
 * ids, the machine, and writing the accepted text on.
 */
export function parsingPassThrough(inner: typeof fetch): typeof fetch {
  return async (input, init) => {
    const res = await inner(input, init);
    if (!res.body) return res;
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    const parser = createParser({ onEvent: () => {} });
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          const { done, value } = await reader.read();
          if (done) {
            parser.feed(decoder.decode());
            controller.close();
            return;
          }
          parser.feed(decoder.decode(value, { stream: true }));
          controller.enqueue(value);
        },
        cancel: (reason) => reader.cancel(reason),
      },
      { highWaterMark: 0 },
    );
    return new Response(body, {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
  };
}

/** A body of one event and the result: what a completed call's stream is. */
function completedStream(): Response {
  const text =
    'id: 1\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"data":1}}\n\n' +
    'id: 2\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n';
  return new Response(text, { headers: { 'content-type': 'text/event-stream' } });
}

/** See the module comment. */
export const guardBench: Bench = {
  name: 'guard',
  summary: 'continuityGuard overhead against bare fetch, and its heap over 100k completed streams',
  async run(log) {
    let body = '';
    for (let i = 1; i <= N; i++) {
      body += `id: ${i}\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"data":${i}}}\n\n`;
    }
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`;
    const lines: string[] = [];
    try {
      const guarded = continuityGuard(fetch);
      const floor = parsingPassThrough(fetch);
      await readAll(url, fetch); // warm-up
      await readAll(url, floor);
      await readAll(url, guarded);
      const bareSlices: Slice[] = [];
      const floorSlices: Slice[] = [];
      const guardSlices: Slice[] = [];
      const rounds = pairsWanted();
      // (CPU per event of the subject) / (CPU per event of the baseline), from their rates.
      const per = (b: number, s: number) => b / s;
      for (let i = 0; i < rounds; i++) {
        bareSlices.push(await cpuSlice(url, fetch));
        floorSlices.push(await cpuSlice(url, floor));
        guardSlices.push(await cpuSlice(url, guarded));
        const [b, f, g] = [bareSlices[i]!, floorSlices[i]!, guardSlices[i]!].map(
          (x) => x.secs / x.units,
        );
        log(
          `round ${i + 1}/${rounds}: guard/bare ${(g! / b!).toFixed(3)}, floor/bare ${(f! / b!).toFixed(3)}, guard/floor ${(g! / f!).toFixed(3)}`,
        );
      }
      const cpu = pairUp(bareSlices, guardSlices, per);
      const floorOverBare = pairUp(bareSlices, floorSlices, per);
      const guardOverFloor = pairUp(floorSlices, guardSlices, per);
      const us = (slices: Slice[]) => (1e6 / medianRate(slices)).toFixed(2);
      lines.push(
        `CPU per event, ${N} events in one stream, alternating slices: bare ${us(bareSlices)} µs, guarded ${us(guardSlices)} µs; guard/bare ${spread(cpu)}`,
      );
      const met = guardOverFloor.median <= FLOOR_TARGET;
      lines.push(
        `  floor (a fetch wrapper that decodes, parses with eventsource-parser and forwards the bytes, judging nothing): ${us(floorSlices)} µs; floor/bare ${spread(floorOverBare)}; guard/floor ${spread(guardOverFloor)} (target <= ${FLOOR_TARGET}: ${met ? 'met' : 'not met'})`,
      );
      if (!met) {
        lines.push(
          `FAIL guard/floor median ${guardOverFloor.median.toFixed(2)}: the guard's own work costs more than ${((FLOOR_TARGET - 1) * 100).toFixed(0)}% above the floor`,
        );
      }
      const bare = await readAll(url, fetch);
      const withGuard = await readAll(url, guarded);
      log(`read ${N} events: bare ${bare.ms.toFixed(0)} ms, guarded ${withGuard.ms.toFixed(0)} ms`);
      const row = (name: string, b: number, g: number) =>
        `${name}: bare ${b.toFixed(4)} ms, guarded ${g.toFixed(4)} ms, ratio ${(g / Math.max(b, 1e-6)).toFixed(2)}`;
      lines.push(`${N} events in one stream, time between consecutive events at the reader:`);
      lines.push(`  ${row('p50', pct(bare.gaps, 50), pct(withGuard.gaps, 50))}`);
      lines.push(`  ${row('p99', pct(bare.gaps, 99), pct(withGuard.gaps, 99))}`);
      lines.push(`  ${row('whole read', bare.ms, withGuard.ms)}`);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
    const inMemory: typeof fetch = async () => completedStream();
    const guarded = continuityGuard(inMemory);
    const heap: Record<number, number> = {};
    for (let i = 1; i <= N; i++) {
      const res = await guarded('http://127.0.0.1/mcp', {
        method: 'POST',
        body: '{"jsonrpc":"2.0","id":1,"method":"x"}',
      });
      await res.text();
      if (i === 10_000 || i === N) {
        gc();
        heap[i] = process.memoryUsage().heapUsed / 2 ** 20;
        log(`${i} completed streams: heap ${heap[i]!.toFixed(1)} MB`);
      }
    }
    const held = inspectGuard(guarded)!;
    lines.push(
      `${N} completed streams: heap ${heap[10_000]!.toFixed(1)} MB after 10k, ${heap[N]!.toFixed(1)} MB after ${N / 1000}k (ratio ${(heap[N]! / heap[10_000]!).toFixed(2)}); streams still held: ${held.streams}`,
    );
    return lines;
  },
};
