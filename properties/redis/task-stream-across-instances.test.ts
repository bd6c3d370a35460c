/**
 * A task's stream served from more than one instance (issue 28): two `taskStreamHandler`s, each
 * on its own `RedisTaskEventLog` (its own Redis connection) over one real redis-server of the
 * suite's own, each on a `serveFetch` host on 127.0.0.1; the client is the project's
 * `taskStreamGuard` (over `fetchTaskStream`). A stream read on instance A and resumed with
 * `after` on instance B is contiguous, then live on B until the task completes; a cursor whose
 * successor was trimmed gets `events_gone` with `earliestSeq` (and SEP-2694's recovery goes on
 * from it); Redis killed -9 under a live reader, or down at the opening, fails the stream with
 * a clear error within a bound, never a silent gap and never an endless wait; a log that never
 * answers the opening is answered at `openTimeoutMs`. The mutants: a source that resumes at the
 * head instead of `after + 1` (events skipped), which the guard catches; the handler without
 * the opening's bound, whose call is still waiting.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { findRedisServer } from '../../src/conformance/adapters/redis-server.js';
import { serveFetch, type FetchHost } from '../../src/conformance/fetch-host.js';
import { RedisTaskEventLog, type RedisClient } from '../../src/redis/index.js';
import {
  fetchTaskStream,
  StreamResumptionError,
  taskStreamGuard,
  taskStreamHandler,
  type TaskStreamGuard,
  type TaskStreamItem,
  type TaskStreamSource,
} from '../../src/runtime/index.js';
import { connectRedis, uniquePrefix } from '../support/redis.js';
import { crashableRedis, PERSISTENCE, type CrashableRedis } from '../support/redis-crash.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `p`, or a rejection naming `what` after `ms`: no wait of this suite is unbounded. */
async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: no end within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Live readers wait at most this long per XREAD; commands at most this long. */
const BLOCK_MS = 200;
const COMMAND_MS = 1000;

interface Instance {
  log: RedisTaskEventLog;
  host: FetchHost;
  client: RedisClient;
}

interface World {
  redis: CrashableRedis;
  a: Instance;
  b: Instance;
  /** Another host over B's log through `source` (a wrong one, for the mutant). */
  serve(source: TaskStreamSource): Promise<FetchHost>;
}

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c().catch(() => {});
});

async function world(): Promise<World> {
  const redis = await crashableRedis(PERSISTENCE[0]!);
  cleanup.push(() => redis.stop());
  const prefix = uniquePrefix();
  const instance = async (): Promise<Instance> => {
    const client = await connectRedis(redis.url);
    cleanup.push(async () => client.destroy());
    const log = new RedisTaskEventLog({
      client,
      prefix,
      blockMs: BLOCK_MS,
      commandTimeoutMs: COMMAND_MS,
    });
    await log.verify();
    const host = await serveFetch(taskStreamHandler(log));
    cleanup.push(() => host.close());
    return { log, host, client };
  };
  const a = await instance();
  const b = await instance();
  return {
    redis,
    a,
    b,
    async serve(source) {
      const host = await serveFetch(taskStreamHandler(source));
      cleanup.push(() => host.close());
      return host;
    },
  };
}

/** Reads `guard.stream` on `url` (at most `upto` events, then leaves); bounded. */
async function read(
  guard: TaskStreamGuard,
  url: string,
  taskId: string,
  upto = Infinity,
): Promise<{ seqs: number[]; error?: unknown }> {
  const seqs: number[] = [];
  const run = async () => {
    for await (const e of guard.stream(fetch, url, taskId)) {
      seqs.push(e.seq);
      if (seqs.length >= upto) break;
    }
  };
  try {
    await within(run(), 15_000, `reading ${url}`);
    return { seqs };
  } catch (error) {
    return { seqs, error };
  }
}

/** Everything one `tasks/stream` call on `url` gives, bounded. */
async function answer(url: string, params: { taskId: string; after?: number }) {
  const items: TaskStreamItem[] = [];
  const run = async () => {
    for await (const item of fetchTaskStream(fetch, url, params)) items.push(item);
  };
  await within(run(), 15_000, `tasks/stream on ${url}`);
  return items;
}

/**
 * Events 0..4 written on A; the client reads 0..2 on A and leaves; it resumes on `resumeOn`
 * while A appends 5..9 (one every 20 ms) and completes the task. What the client got.
 */
async function resumeAcross(w: World, resumeOn: string) {
  const taskId = await w.a.log.createTask();
  for (let i = 0; i < 5; i++) await w.a.log.append(taskId, 'com.example.step', { i });
  const guard = taskStreamGuard({ proofTimeoutMs: 5000 });
  const first = await read(guard, w.a.host.url, taskId, 3);
  expect(first).toEqual({ seqs: [0, 1, 2] });
  expect(guard.cursor(taskId)).toBe(2);
  const writer = (async () => {
    await sleep(50);
    for (let i = 5; i < 10; i++) {
      await w.a.log.append(taskId, 'com.example.step', { i });
      await sleep(20);
    }
    await w.a.log.complete(taskId);
  })();
  const second = await read(guard, resumeOn, taskId);
  await within(writer, 15_000, 'the writer on A');
  return { seqs: [...first.seqs, ...second.seqs], error: second.error };
}

describe.skipIf(findRedisServer() === null)('a task stream served from another instance', () => {
  test('read on A, resumed with after on B: contiguous, then live on B until the task completes', async () => {
    const w = await world();
    const bodies: unknown[] = [];
    const { seqs, error } = await resumeAcross(w, w.b.host.url);
    expect(error).toBeUndefined();
    expect(seqs).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // The call on B carried the cursor: what B served is after + 1 on, by the guard's own count.
    const spy: typeof fetch = async (url, init) => {
      bodies.push(JSON.parse(String(init?.body)));
      return fetch(url, init);
    };
    const taskId = await w.a.log.createTask();
    for (let i = 0; i < 3; i++) await w.a.log.append(taskId, 'com.example.step', { i });
    await w.a.log.complete(taskId);
    const guard = taskStreamGuard();
    for await (const e of guard.stream(spy, w.a.host.url, taskId)) if (e.seq === 0) break;
    const rest: number[] = [];
    for await (const e of guard.stream(spy, w.b.host.url, taskId)) rest.push(e.seq);
    expect(rest).toEqual([1, 2]);
    expect(bodies.map((b) => (b as { params: unknown }).params)).toEqual([
      { taskId },
      { taskId, after: 0 },
    ]);
  });

  test('kill: a source that resumes at the head instead of after + 1 skips events, and the guard fails the stream', async () => {
    const w = await world();
    const atHead: TaskStreamSource = {
      async openStream(params, signal) {
        const p = params as { taskId: string; after?: number };
        const d = await w.b.log.describe(p.taskId);
        return w.b.log.openStream({ ...p, after: d!.next - 1 }, signal);
      },
    };
    const mutant = await w.serve(atHead);
    const { seqs, error } = await resumeAcross(w, mutant.url);
    expect(error).toBeInstanceOf(StreamResumptionError);
    // Nothing from after the gap reached the application.
    expect(seqs).toEqual([0, 1, 2]);
  });

  test('a cursor whose successor was trimmed gets events_gone with earliestSeq on B; the recovery goes on from it', async () => {
    const w = await world();
    const taskId = await w.a.log.createTask();
    for (let i = 0; i < 10; i++) await w.a.log.append(taskId, 'com.example.step', { i });
    await w.a.log.complete(taskId);
    const guard = taskStreamGuard();
    expect(await read(guard, w.a.host.url, taskId, 2)).toEqual({ seqs: [0, 1] });
    expect(await w.a.log.trim(taskId, 6)).toBe(6);
    const items = await answer(w.b.host.url, { taskId, after: 1 });
    expect(items).toHaveLength(1);
    expect(items[0]!.message).toMatchObject({
      error: { code: -32010, data: { reason: 'events_gone', taskId, earliestSeq: 6 } },
    });
    const gone = await read(guard, w.b.host.url, taskId);
    expect(gone.seqs).toEqual([]);
    expect(gone.error).toBeInstanceOf(StreamResumptionError);
    expect(String(gone.error)).toMatch(/events_gone|earliestSeq/);
    // SEP-2694's recovery: accept the gap, resume at earliestSeq - 1, on either instance.
    expect(guard.recover(taskId)).toBe(5);
    expect(await read(guard, w.b.host.url, taskId)).toEqual({ seqs: [6, 7, 8, 9] });
  });

  test('Redis killed -9 under a live reader on B: the stream fails with a clear error within a bound, after the last event it had', async () => {
    const w = await world();
    const taskId = await w.a.log.createTask();
    for (let i = 0; i < 3; i++) await w.a.log.append(taskId, 'com.example.step', { i });
    const guard = taskStreamGuard({ proofTimeoutMs: 5000 });
    // The raw answer too, to read the error the handler wrote.
    const raw = answer(w.b.host.url, { taskId, after: 0 });
    const reading = read(guard, w.b.host.url, taskId);
    // Both readers have their retained events and wait live (XREAD BLOCK) when Redis dies.
    await sleep(3 * BLOCK_MS);
    const t0 = Date.now();
    await w.redis.kill9();
    const got = await reading;
    expect(got.seqs).toEqual([0, 1, 2]);
    // The guard ends the stream with the error the handler wrote (an application-level
    // JSON-RPC error, not a resumption verdict): the events so far, then a clear failure.
    expect(String(got.error)).toMatch(
      /answered HTTP status 200 JSON-RPC error -32603 \(Redis did not answer .*live reader of task/,
    );
    const items = await raw;
    // Bounded by the XREAD block, the command bound and the connection's reconnect: seconds.
    expect(Date.now() - t0).toBeLessThan(12_000);
    expect(items.map((i) => (i.message as { params?: { seq?: number } }).params?.seq)).toEqual([
      1,
      2,
      undefined,
    ]);
    expect(items.at(-1)!.message).toMatchObject({ error: { code: -32603 } });
    expect(String((items.at(-1)!.message as { error: { message: string } }).error.message)).toMatch(
      /Redis/,
    );
  });

  test('Redis down at the opening: one JSON-RPC error naming the log that failed, at once; never an empty stream', async () => {
    const w = await world();
    const taskId = await w.a.log.createTask();
    await w.a.log.append(taskId, 'com.example.step', {});
    await w.redis.kill9();
    // Until the client notices, a command may wait for its bound: still within seconds.
    const t0 = Date.now();
    const items = await answer(w.b.host.url, { taskId, after: 0 });
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(items).toHaveLength(1);
    expect(items[0]!.status).toBe(200);
    expect(items[0]!.message).toMatchObject({
      error: {
        code: -32603,
        message: expect.stringMatching(/^tasks\/stream: the task event log failed: Redis/),
      },
    });
    const got = await read(taskStreamGuard(), w.a.host.url, taskId);
    expect(got.seqs).toEqual([]);
    expect(String(got.error)).toMatch(
      /JSON-RPC error -32603 \(tasks\/stream: the task event log failed/,
    );
  });

  test('after a Redis restart a task from before it is refused on B as lost, never served under reissued seqs', async () => {
    const w = await world();
    const taskId = await w.a.log.createTask();
    for (let i = 0; i < 3; i++) await w.a.log.append(taskId, 'com.example.step', { i });
    const guard = taskStreamGuard();
    expect(await read(guard, w.a.host.url, taskId, 2)).toEqual({ seqs: [0, 1] });
    await w.redis.kill9();
    await w.redis.restart();
    for (let i = 0; i < 100 && !(w.a.client.isReady && w.b.client.isReady); i++) await sleep(50);
    // No persistence: the task is gone, an unknown task; never a fresh seq 0 under its id.
    const items = await answer(w.b.host.url, { taskId, after: 1 });
    expect(items).toHaveLength(1);
    expect(items[0]!.message).toMatchObject({ error: { code: -32602 } });
    const got = await read(guard, w.b.host.url, taskId);
    expect(got.seqs).toEqual([]);
    expect(got.error).toBeInstanceOf(StreamResumptionError);
  });
});

describe('a log elsewhere that never answers the opening', () => {
  /** A source whose opening hangs (a store that accepted the connection and went silent). */
  const silent: TaskStreamSource = { openStream: () => new Promise(() => {}) };

  test('is answered with one JSON-RPC error at the bound, not an endless wait', async () => {
    const host = await serveFetch(taskStreamHandler(silent, { openTimeoutMs: 300 }));
    cleanup.push(() => host.close());
    const t0 = Date.now();
    const items = await answer(host.url, { taskId: 't', after: 0 });
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(items).toEqual([
      {
        status: 200,
        message: {
          jsonrpc: '2.0',
          id: expect.anything() as unknown,
          error: {
            code: -32603,
            message:
              'tasks/stream: the task event log failed: the task event log did not answer within 300 ms',
          },
        },
      },
    ]);
  });

  test('kill: without the bound (openTimeoutMs Infinity) the call is still waiting after 1 s', async () => {
    const host = await serveFetch(taskStreamHandler(silent, { openTimeoutMs: Infinity }));
    cleanup.push(() => host.close());
    const outcome = await within(answer(host.url, { taskId: 't', after: 0 }), 1000, 'open').then(
      () => 'answered',
      (e: unknown) => String(e),
    );
    expect(outcome).toMatch(/no end within 1000 ms/);
  });
});
