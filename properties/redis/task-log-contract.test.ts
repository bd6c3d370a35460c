/**
 * The TaskEventLog contract, one suite run against both logs: the in-process `TaskEventLog`
 * and `RedisTaskEventLog` (on the run's Redis). seq from 0, +1 each, per task; every cursor
 * replayed exactly or refused with events_gone naming the earliest retained seq (after
 * retention and after `trim`); invalid cursors and unknown tasks refused with -32602; live
 * readers that get what is appended and end at completion; never another task's events. Then
 * the Redis log killed -9 in the middle of appends under each persistence mode: no seq is
 * issued twice for different events, and no reader is served an event other than the one its
 * seq was issued for (a log that skips the incarnation check, on RDB, is the mutant it kills).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { findRedisServer } from '../../src/conformance/adapters/redis-server.js';
import {
  RedisSetupError,
  RedisTaskEventLog,
  TaskLostError,
  type AsyncTaskEventLog,
  type RedisClient,
  type RedisTaskEventLogOptions,
} from '../../src/redis/index.js';
import {
  EVENTS_GONE_CODE,
  EventsGoneError,
  TaskEventLog,
  type TaskEvent,
} from '../../src/runtime/index.js';
import { connectRedis, redisUrl, uniquePrefix } from '../support/redis.js';
import { crashableRedis, PERSISTENCE, type Persistence } from '../support/redis-crash.js';
import { announceSeed, runs } from '../support/seed.js';

const seed = announceSeed('properties/redis/task-log-contract.test.ts');
const URL = redisUrl();
let client: RedisClient | undefined;
beforeAll(async () => {
  if (URL) client = await connectRedis(URL);
});
afterAll(async () => {
  await client?.close();
});

interface Kind {
  name: string;
  make(o: { maxEventsPerTask?: number }): AsyncTaskEventLog;
}

const KINDS: Kind[] = [
  { name: 'TaskEventLog (in process)', make: (o) => new TaskEventLog(o) },
  {
    name: 'RedisTaskEventLog',
    make: (o) =>
      new RedisTaskEventLog({ client: client!, prefix: uniquePrefix(), blockMs: 100, ...o }),
  },
];

async function drain(events: AsyncGenerator<TaskEvent, void, undefined>): Promise<TaskEvent[]> {
  const out: TaskEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

/** Opens a stream that must open, and an abort that ends it after what is retained. */
async function open(log: AsyncTaskEventLog, params: object) {
  const ac = new AbortController();
  const o = await log.openStream(params, ac.signal);
  if (!o.ok) throw new Error(`did not open: ${JSON.stringify(o.error)}`);
  return { events: o.events, stop: () => ac.abort() };
}

const seqs = (es: TaskEvent[]) => es.map((e) => e.seq);

describe.each(KINDS)('contract: $name', (kind) => {
  const skip = kind.name.startsWith('Redis') && !URL;

  test.skipIf(skip)('seq from 0, +1 each, per task; task ids never issued twice', async () => {
    const log = kind.make({});
    const [a, b] = [await log.createTask(), await log.createTask()];
    expect(a).not.toBe(b);
    const got = [];
    for (let i = 0; i < 3; i++) got.push((await log.append(a, 'com.example.step', { i })).seq);
    got.push((await log.append(b, 'com.example.step', {})).seq);
    got.push((await log.append(a, 'com.example.step', { i: 3 })).seq);
    expect(got).toEqual([0, 1, 2, 0, 3]);
    expect(await log.describe(a)).toEqual({ earliest: 0, next: 4, done: false });
  });

  test.skipIf(skip)('a cursor is replayed exactly: the events after it, then the end', async () => {
    const log = kind.make({});
    const t = await log.createTask();
    const issued: TaskEvent[] = [];
    for (let i = 0; i < 5; i++) issued.push(await log.append(t, 'com.example.step', { i }));
    await log.complete(t);
    const { events } = await open(log, { taskId: t, after: 1 });
    expect(await drain(events)).toEqual(issued.slice(2));
  });

  test.skipIf(skip)(
    'events_gone with earliestSeq after retention (maxEventsPerTask) and after trim',
    async () => {
      const log = kind.make({ maxEventsPerTask: 3 });
      const t = await log.createTask();
      for (let i = 0; i < 6; i++) await log.append(t, 'com.example.step', { i });
      const gone = await log.openStream({ taskId: t, after: 1 });
      expect(gone.ok ? 'opened' : gone.error).toEqual({
        code: EVENTS_GONE_CODE,
        message: 'Task events are no longer available',
        data: { reason: 'events_gone', taskId: t, earliestSeq: 3 },
      });
      // The cursor just below the earliest is still replayable.
      const ok = await open(log, { taskId: t, after: 2 });
      ok.stop();
      expect(seqs(await drain(ok.events))).toEqual([3, 4, 5]);
      expect(await log.trim(t, 5)).toBe(5);
      const trimmed = await log.openStream({ taskId: t, after: 3 });
      expect(trimmed.ok ? 'opened' : trimmed.error.data).toEqual({
        reason: 'events_gone',
        taskId: t,
        earliestSeq: 5,
      });
    },
  );

  test.skipIf(skip)(
    'without after: from the earliest retained; invalid after and unknown tasks: -32602',
    async () => {
      const log = kind.make({ maxEventsPerTask: 2 });
      const t = await log.createTask();
      for (const after of [-1, 1.5, '3', 0]) {
        const o = await log.openStream({ taskId: t, after });
        expect(o.ok ? 'opened' : o.error.code, JSON.stringify(after)).toBe(-32602);
      }
      for (let i = 0; i < 4; i++) await log.append(t, 'com.example.step', { i });
      await log.complete(t);
      const { events } = await open(log, { taskId: t });
      expect(seqs(await drain(events))).toEqual([2, 3]);
      expect((await log.openStream({ taskId: t, after: 4 })).ok).toBe(false);
      for (const params of [null, [], { taskId: '' }, { taskId: 'task-nope' }]) {
        const o = await log.openStream(params);
        expect(o.ok ? 'opened' : o.error.code).toBe(-32602);
      }
      // The in-process log throws at once, the Redis log rejects: both fail the call.
      const call = async <T>(f: () => T) => f();
      await expect(call(() => log.append(t, 'com.example.step'))).rejects.toThrow(/has finished/);
      await expect(call(() => log.append('task-nope', 'com.example.step'))).rejects.toThrow(
        /unknown task/,
      );
    },
  );

  test.skipIf(skip)(
    "live readers get what is appended, in order, never another task's events, and end at completion",
    async () => {
      const log = kind.make({});
      const [a, b] = [await log.createTask(), await log.createTask()];
      await log.append(a, 'com.example.step', { i: 0 });
      const { events } = await open(log, { taskId: a, after: 0 });
      const reading = drain(events);
      await new Promise((r) => setTimeout(r, 50)); // the reader waits live
      await log.append(b, 'com.example.other', {});
      await log.append(a, 'com.example.step', { i: 1 });
      await log.append(a, 'com.example.step', { i: 2 });
      await log.complete(a);
      const got = await reading;
      expect(got.map((e) => [e.taskId, e.seq, e.payload])).toEqual([
        [a, 1, { i: 1 }],
        [a, 2, { i: 2 }],
      ]);
    },
  );

  test.skipIf(skip)(
    'a live reader that falls behind retention is refused with events_gone, not skipped',
    async () => {
      const log = kind.make({ maxEventsPerTask: 2 });
      const t = await log.createTask();
      await log.append(t, 'com.example.step');
      const { events } = await open(log, { taskId: t, after: 0 });
      const waiting = events.next();
      await new Promise((r) => setTimeout(r, 50));
      await log.append(t, 'com.example.step'); // seq 1 wakes the reader
      expect((await waiting).value).toMatchObject({ seq: 1 });
      for (let i = 0; i < 4; i++) await log.append(t, 'com.example.step'); // 2 and 3 evicted
      const error = await events.next().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EventsGoneError);
      expect((error as EventsGoneError).earliestSeq).toBe(4);
    },
  );

  test.skipIf(skip)(
    'property: random appends past retention and random cursors, replayed exactly or events_gone',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.oneof(
              fc.record({ append: fc.integer({ min: 1, max: 5 }) }),
              fc.record({ after: fc.option(fc.integer({ min: -1, max: 20 }), { nil: undefined }) }),
            ),
            { maxLength: 12 },
          ),
          fc.integer({ min: 1, max: 6 }),
          async (ops, cap) => {
            const log = kind.make({ maxEventsPerTask: cap });
            const t = await log.createTask();
            const truth: TaskEvent[] = [];
            for (const o of ops) {
              if ('append' in o) {
                for (let i = 0; i < o.append; i++) {
                  const e = await log.append(t, 'com.example.step', { n: truth.length });
                  expect(e.seq).toBe(truth.length);
                  truth.push(e);
                }
                continue;
              }
              const earliest = Math.max(0, truth.length - cap);
              const a = o.after;
              const ac = new AbortController();
              const opening = await log.openStream(
                a === undefined ? { taskId: t } : { taskId: t, after: a },
                ac.signal,
              );
              if (a !== undefined && (a < 0 || a >= truth.length)) {
                expect(opening.ok ? 'opened' : opening.error.code).toBe(-32602);
              } else if (a !== undefined && a + 1 < earliest) {
                expect(opening.ok ? 'opened' : opening.error.data).toEqual({
                  reason: 'events_gone',
                  taskId: t,
                  earliestSeq: earliest,
                });
              } else {
                if (!opening.ok) throw new Error(JSON.stringify(opening.error));
                ac.abort();
                const from = a === undefined ? earliest : a + 1;
                expect(await drain(opening.events)).toEqual(truth.slice(from));
              }
            }
          },
        ),
        { seed, numRuns: runs(kind.name.startsWith('Redis') ? 40 : 200), endOnFailure: true },
      );
    },
  );
});

/** What one crash run of a task log found. */
interface TaskCrashTally {
  issued: number;
  /** seqs handed out a second time (after the crash) for another event. */
  reissued: number;
  /** Events a reader got after the crash that are not the ones their seq was issued for. */
  wrong: number;
  /** Pre-crash tasks whose stream or append was refused after the crash. */
  refused: number;
  /** Pre-crash tasks whose every issued event replayed exactly after the crash. */
  replayed: number;
}

/** A log that skips the checks (incarnation and settings): what a log without them does. */
class UncheckedTaskLog extends RedisTaskEventLog {
  constructor(o: RedisTaskEventLogOptions) {
    super({ ...o, restart: 'keep' });
  }
  override async verify(): Promise<void> {}
  protected override setupCheck(): boolean {
    return false;
  }
}

/**
 * 4 tasks; 40 appends (an RDB `SAVE` after them); then 4 appenders until 60 more succeeded,
 * when Redis is killed -9 (appends in flight); restarted on its data; then 5 appends to each
 * old task and every old task read from its start.
 */
async function taskCrash(
  persistence: Persistence,
  make: (c: RedisClient) => RedisTaskEventLog,
): Promise<TaskCrashTally> {
  const redis = await crashableRedis(persistence);
  const clients: RedisClient[] = [];
  const connect = async () => {
    const c = await connectRedis(redis.url);
    clients.push(c);
    return c;
  };
  try {
    const first = make(await connect());
    const tasks = [];
    for (let i = 0; i < 4; i++) tasks.push(await first.createTask());
    /** Every event issued, per task and seq: its payload's JSON. */
    const issued = new Map<string, string>();
    const attempted = new Set<string>();
    let reissued = 0;
    let n = 0;
    const append = async (log: RedisTaskEventLog, t: string) => {
      const payload = { n: ++n };
      attempted.add(`${t}/${JSON.stringify(payload)}`);
      const e = await log.append(t, 'com.example.step', payload);
      const key = `${t}/${e.seq}`;
      const seen = issued.get(key);
      if (seen !== undefined && seen !== JSON.stringify(payload)) reissued++;
      if (seen === undefined) issued.set(key, JSON.stringify(payload));
    };
    for (let i = 0; i < 40; i++) await append(first, tasks[i % 4]!);
    if (persistence.name.startsWith('RDB')) await clients[0]!.sendCommand(['SAVE']);
    let ok = 0;
    let crashed: Promise<void> | undefined;
    await Promise.all(
      tasks.map(async (t) => {
        while (crashed === undefined) {
          try {
            await append(first, t);
          } catch {
            return;
          }
          if (++ok === 60) crashed = redis.kill9();
        }
      }),
    );
    await crashed;
    await redis.restart();
    const second = make(await connect());
    const tally: TaskCrashTally = {
      issued: issued.size,
      reissued: 0,
      wrong: 0,
      refused: 0,
      replayed: 0,
    };
    for (const t of tasks) {
      let refused = false;
      for (let i = 0; i < 5; i++) {
        try {
          await append(second, t);
        } catch (e) {
          if (!(e instanceof TaskLostError || e instanceof RangeError)) throw e;
          refused = true;
        }
      }
      // Aborted before it opens: what is retained is sent, then the stream ends.
      const ac = new AbortController();
      ac.abort();
      const o = await second.openStream({ taskId: t }, ac.signal);
      if (!o.ok) {
        refused = true;
      } else {
        const got = await drain(o.events);
        let exact = true;
        for (const e of got) {
          const was = issued.get(`${t}/${e.seq}`);
          const json = JSON.stringify(e.payload);
          // An append whose answer was lost in the crash is in the log, never handed out.
          if (was === undefined ? !attempted.has(`${t}/${json}`) : was !== json) {
            tally.wrong++;
            exact = false;
          }
        }
        if (exact && !refused) tally.replayed++;
      }
      if (refused) tally.refused++;
    }
    tally.reissued = reissued;
    tally.issued = issued.size;
    console.log(
      `[task crash] ${persistence.name}, ${make(clients[0]!).constructor.name}: ${JSON.stringify(tally)}`,
    );
    return tally;
  } finally {
    for (const c of clients) c.destroy();
    await redis.stop();
  }
}

describe.skipIf(findRedisServer() === null).each(PERSISTENCE)(
  'RedisTaskEventLog, Redis killed -9 mid-append and restarted with $name',
  (persistence) => {
    test('default (new-incarnation): no seq issued twice, no reader served another event, every old task refused', async () => {
      const t = await taskCrash(
        persistence,
        (c) => new RedisTaskEventLog({ client: c, prefix: 'p' }),
      );
      expect(t.reissued).toBe(0);
      expect(t.wrong).toBe(0);
      expect(t.refused).toBe(4);
    });

    test.runIf(persistence.name.includes('always'))(
      "restart: 'keep' on AOF always: no seq issued twice, every old task replayed exactly and appended to",
      async () => {
        const t = await taskCrash(
          persistence,
          (c) => new RedisTaskEventLog({ client: c, prefix: 'p', restart: 'keep' }),
        );
        expect(t.reissued).toBe(0);
        expect(t.wrong).toBe(0);
        expect(t.replayed).toBe(4);
      },
    );

    test.runIf(!persistence.name.includes('always'))(
      "restart: 'keep' is refused on this set-up",
      async () => {
        const redis = await crashableRedis(persistence);
        const c = await connectRedis(redis.url);
        try {
          const log = new RedisTaskEventLog({ client: c, prefix: 'p', restart: 'keep' });
          await expect(log.verify()).rejects.toBeInstanceOf(RedisSetupError);
          await expect(log.createTask()).rejects.toThrow(/^restart: 'keep' needs appendonly yes/);
        } finally {
          c.destroy();
          await redis.stop();
        }
      },
    );

    test.runIf(persistence.name.startsWith('RDB'))(
      'kill: a log without the incarnation check (and its settings check) reissues seqs on RDB',
      async () => {
        const t = await taskCrash(
          persistence,
          (c) => new UncheckedTaskLog({ client: c, prefix: 'p' }),
        );
        expect(t.reissued).toBeGreaterThan(0);
      },
    );
  },
);

test.skipIf(findRedisServer() === null)(
  'an eviction policy is refused by the task log too',
  async () => {
    const redis = await crashableRedis({
      name: 'allkeys-lru',
      args: [...PERSISTENCE[0]!.args, '--maxmemory-policy', 'allkeys-lru'],
    });
    const c = await connectRedis(redis.url);
    try {
      const log = new RedisTaskEventLog({ client: c });
      await expect(log.createTask()).rejects.toThrow(/^Redis maxmemory-policy is allkeys-lru: /);
    } finally {
      c.destroy();
      await redis.stop();
    }
  },
);

describe.skipIf(!URL)('RedisTaskEventLog only', () => {
  test('no key of a task is left without a TTL (created, appended to, completed; completed with no events)', async () => {
    const prefix = uniquePrefix();
    const log = new RedisTaskEventLog({ client: client!, prefix, ttlSeconds: 30 });
    const a = await log.createTask();
    await log.append(a, 'com.example.step');
    await log.complete(a);
    const b = await log.createTask();
    await log.complete(b);
    const keys = await client!.sendCommand<string[]>(['KEYS', `${prefix}:*`]);
    expect(keys).toHaveLength(4);
    for (const key of keys) {
      const ttl = await client!.sendCommand<number>(['PTTL', key]);
      expect(ttl, key).toBeGreaterThan(30_000);
      expect(ttl, key).toBeLessThanOrEqual(45_000);
    }
  });
});
