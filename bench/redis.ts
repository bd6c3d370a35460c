/**
 * `npm run bench redis`: `RedisContinuityEventStore` against raw `XADD`/`XRANGE` through the
 * same node-redis client in the same run (appends/s, replayed events/s, and their ratios), and
 * the latency a resume adds (GET with Last-Event-ID to the first byte of the resumed stream):
 * on the instance that holds the session (the 2.x transport with the Redis store), and on
 * another instance (`adoptSession` of a fresh transport, then `resumeResponse`). It needs
 * Redis (`REDIS_URL`, or a `redis-server` on PATH it starts and stops).
 */
import { McpServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { createClient } from 'redis';
import { startRedis } from '../src/conformance/adapters/redis-server.js';
import {
  adoptSession,
  RedisContinuityEventStore,
  resumeResponse,
  type RedisClient,
} from '../src/redis/index.js';
import { ReplayFence } from '../src/runtime/replay-fence.js';
import type { Bench } from './bench.js';

const message = (i: number) => ({
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { progressToken: 't', progress: i, message: `message ${i} of the bench` },
});

/** Runs `n` tasks with `width` in flight; resolves to the elapsed ms. */
async function pooled(n: number, width: number, task: (i: number) => Promise<unknown>) {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) await task(next++);
    }),
  );
  return performance.now() - t0;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

/** Milliseconds from the request to the first byte of the answer's body. */
async function firstByte(get: () => Promise<Response>): Promise<number> {
  const t0 = performance.now();
  const res = await get();
  const reader = res.body!.getReader();
  await reader.read();
  const ms = performance.now() - t0;
  await reader.cancel();
  return ms;
}

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'b', version: '1' },
  },
};

/** See the module comment. */
export const redisBench: Bench = {
  name: 'redis',
  summary: 'RedisContinuityEventStore vs raw XADD/XRANGE, and the latency a resume adds',
  async run(log) {
    const redis = await startRedis();
    if (redis.url === null) return [`not run: ${redis.reason}`];
    const client = (await createClient({ url: redis.url, disableOfflineQueue: true })
      .on('error', () => {})
      .connect()) as RedisClient;
    const lines: string[] = [];
    try {
      {
        const N = 20_000;
        const width = 32;
        // Store and raw take turns, in slices, and each ratio is of their summed times: on a
        // shared, loaded machine a load spike then hits both sides alike, not one whole phase.
        const slices = 10;
        const per = N / slices;
        const store = new RedisContinuityEventStore({ client, prefix: 'b', capacity: N });
        const rawKey = 'raw';
        // Warm-up: the script loaded, the settings checked, both keys created.
        await store.storeEvent('warm', message(0));
        await client.sendCommand(['XADD', 'rawwarm', '*', 'm', '{}']);
        // The floor of any append run as a script: EVALSHA of a script that does the raw XADD
        // and nothing else (no counter, no incarnation check, no TTL). Its ratio to raw XADD is
        // what the script call itself costs; the store's ratio to it is what the store adds.
        const floorSha = String(
          await client.sendCommand([
            'SCRIPT',
            'LOAD',
            "return redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[1], '*', 'm', ARGV[2], 'w', ARGV[3])",
          ]),
        );
        let rawMs = 0;
        let storeMs = 0;
        let floorMs = 0;
        // CPU per append, which a load spike on a shared machine moves far less than a rate:
        // this process's (node-redis, the store's own work) and Redis's (INFO commandstats:
        // XADD for raw, the whole script for the store, its inner commands included).
        const cpu = { raw: 0, store: 0, rawRedis: 0, storeRedis: 0 };
        const redisUsec = async (command: string) => {
          const info = String(await client.sendCommand(['INFO', 'commandstats']));
          return Number(
            new RegExp(`cmdstat_${command}:calls=\\d+,usec=(\\d+)`).exec(info)?.[1] ?? 0,
          );
        };
        // The stream's number is drawn at random (its incarnation): read it off an id.
        let stream = '';
        const rawSlice = async () => {
          const [c0, r0] = [process.cpuUsage(), await redisUsec('xadd')];
          // Raw does the caller's share of the work too: the message's JSON.
          rawMs += await pooled(per, width, (i) =>
            client.sendCommand([
              'XADD',
              rawKey,
              'MAXLEN',
              String(N),
              '*',
              'm',
              JSON.stringify(message(i)),
              'w',
              'x',
            ]),
          );
          const c = process.cpuUsage(c0);
          cpu.raw += c.user + c.system;
          cpu.rawRedis += (await redisUsec('xadd')) - r0;
        };
        const storeSlice = async () => {
          const [c0, r0] = [process.cpuUsage(), await redisUsec('evalsha')];
          storeMs += await pooled(per, width, async (i) => {
            const id = await store.storeEvent('S', message(i));
            stream ||= id.slice(0, id.lastIndexOf('-'));
          });
          const c = process.cpuUsage(c0);
          cpu.store += c.user + c.system;
          cpu.storeRedis += (await redisUsec('evalsha')) - r0;
        };
        const floorSlice = async () => {
          floorMs += await pooled(per, width, (i) =>
            client.sendCommand([
              'EVALSHA',
              floorSha,
              '1',
              'floor',
              String(N),
              JSON.stringify(message(i)),
              'x',
            ]),
          );
        };
        for (let s = 0; s < slices; s++) {
          // Each side goes first in half the slices: the garbage one side leaves is collected
          // during the other's turn either way round.
          const turns = [rawSlice, storeSlice, floorSlice];
          for (const turn of s % 2 === 0 ? turns : turns.reverse()) await turn();
        }
        const raw = (N / rawMs) * 1000;
        const mine = (N / storeMs) * 1000;
        lines.push(
          `appends/s (${N}, ${width} in flight, ${slices} alternating slices): store ${mine.toFixed(0)}, raw XADD ${raw.toFixed(0)}, ratio ${(mine / raw).toFixed(2)} (target >= 0.7)`,
        );
        log(lines.at(-1)!);
        const floor = (N / floorMs) * 1000;
        lines.push(
          `appends/s of a script doing only the XADD (the floor of a scripted append): ${floor.toFixed(0)}, ratio to raw XADD ${(floor / raw).toFixed(2)}; store / that floor ${(mine / floor).toFixed(2)}`,
        );
        log(lines.at(-1)!);
        const us = (x: number) => (x / N).toFixed(1);
        lines.push(
          `CPU per append (µs): node store ${us(cpu.store)}, raw ${us(cpu.raw)}; Redis store ${us(cpu.storeRedis)} (EVALSHA, script included), raw ${us(cpu.rawRedis)} (XADD); (raw / store, node + Redis) ratio ${((cpu.raw + cpu.rawRedis) / (cpu.store + cpu.storeRedis)).toFixed(2)}`,
        );
        log(lines.at(-1)!);
        const cursor = `${stream}-1`;
        let sent = 0;
        let rawRead = 0;
        let replayMs = 0;
        let rawReplayMs = 0;
        const replays = 5;
        for (let r = 0; r < replays; r++) {
          const t1 = performance.now();
          for (let from = '-'; ;) {
            const page = await client.sendCommand<[string, string[]][]>([
              'XRANGE',
              rawKey,
              from,
              '+',
              'COUNT',
              '256',
            ]);
            for (const e of page) {
              JSON.parse(e[1][1]!);
              rawRead++;
            }
            if (page.length === 0) break;
            from = `(${page.at(-1)![0]}`;
          }
          rawReplayMs += performance.now() - t1;
          const t0 = performance.now();
          await store.replayEventsAfter(cursor, { send: async () => void sent++ });
          replayMs += performance.now() - t0;
        }
        const a = (sent / replayMs) * 1000;
        const b = (rawRead / rawReplayMs) * 1000;
        lines.push(
          `replayed events/s (${sent / replays - 1} events x ${replays}, alternating, pages of 256): store ${a.toFixed(0)}, raw XRANGE+JSON.parse ${b.toFixed(0)}, ratio ${(a / b).toFixed(2)} (target >= 0.8)`,
        );
        log(lines.at(-1)!);
      }
      // Latency a resume adds, 200 resumes each, 20 events after the cursor.
      const K = 200;
      const store = new RedisContinuityEventStore({ client, prefix: 'lat', instanceId: 'A' });
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => 'sid',
        eventStore: new ReplayFence(store) as never,
      });
      await new McpServer({ name: 'b', version: '1' }).connect(transport);
      await adoptSession(transport, { epoch: store.epoch, initialize: INIT, createdBy: 'A' });
      const cursor = await store.storeEvent('S', message(0));
      for (let i = 1; i <= 20; i++) await store.storeEvent('S', message(i));
      const headers = {
        accept: 'text/event-stream',
        'mcp-session-id': 'sid',
        'mcp-protocol-version': '2025-11-25',
        'last-event-id': cursor,
      };
      const one: number[] = [];
      const across: number[] = [];
      const adopt: number[] = [];
      for (let i = 0; i < K; i++) {
        one.push(
          await firstByte(() =>
            transport.handleRequest(new Request('http://b/mcp', { method: 'GET', headers })),
          ),
        );
        across.push(
          await firstByte(() =>
            resumeResponse(
              { client, epoch: store.epoch, prefix: 'lat', instanceId: 'B', sessionId: 'sid' },
              cursor,
            ),
          ),
        );
        if (i < 50) {
          adopt.push(
            await firstByte(async () => {
              const t = new WebStandardStreamableHTTPServerTransport({
                sessionIdGenerator: () => 'sid',
              });
              await new McpServer({ name: 'b', version: '1' }).connect(t);
              await adoptSession(t, { epoch: store.epoch, initialize: INIT, createdBy: 'A' });
              await t.close();
              return resumeResponse(
                { client, epoch: store.epoch, prefix: 'lat', instanceId: 'B', sessionId: 'sid' },
                cursor,
              );
            }),
          );
        }
      }
      const fmt = (xs: number[]) =>
        `p50 ${pct(xs, 50).toFixed(2)} ms, p99 ${pct(xs, 99).toFixed(2)} ms (${xs.length})`;
      lines.push(`resume on the instance holding the session (2.x transport): ${fmt(one)}`);
      lines.push(
        `resume on another instance (resumeResponse, session already adopted): ${fmt(across)}`,
      );
      lines.push(
        `resume on another instance, first time (adoptSession + resumeResponse): ${fmt(adopt)}`,
      );
      for (const l of lines.slice(-3)) log(l);
      await transport.close();
    } finally {
      await client.close();
      await redis.stop();
    }
    return lines;
  },
};
