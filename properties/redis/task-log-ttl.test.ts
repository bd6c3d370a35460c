/**
 * The Redis task log's live readers against its TTL, its settings and its connections (issue
 * 38, the red team's third round): a task silent longer than 1.5 × ttlSeconds while a reader
 * waits keeps its keys (a wait never outlasts half the TTL); a reader that pauses past the TTL
 * ends with an error instead of waiting for ever; a maxmemory-policy set while the log runs is
 * refused from then on; waiting readers share one connection. TTLs are 1-2 s so that Redis
 * expires keys within the test; every assertion is on what came back, none on time (a bound
 * on a wait only turns a hang into a failure).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  RedisSetupError,
  RedisTaskEventLog,
  TaskExpiredError,
  type RedisClient,
  type RedisTaskEventLogOptions,
} from '../../src/redis/index.js';
import type { TaskEvent } from '../../src/runtime/index.js';
import { connectRedis, redisUrl, uniquePrefix } from '../support/redis.js';
import { PERSISTENCE, withRedis } from '../support/redis-crash.js';

const URL = redisUrl();
let client: RedisClient | undefined;
beforeAll(async () => {
  if (URL) client = await connectRedis(URL);
});
afterAll(async () => {
  await client?.close();
});

const logOn = (c: RedisClient, o: Partial<RedisTaskEventLogOptions> = {}) =>
  new RedisTaskEventLog({ client: c, prefix: uniquePrefix(), ...o });

/** `p`, or a rejection after `ms` naming what hung (a hang becomes a failure, not a timeout). */
function bounded<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing after ${ms} ms`)), ms);
  });
  return Promise.race([p, hang]).finally(() => clearTimeout(timer));
}

async function opened(log: RedisTaskEventLog, params: unknown) {
  const o = await log.openStream(params);
  if (!o.ok) throw new Error(`openStream refused: ${o.error.message}`);
  return o.events;
}

describe.skipIf(!URL)('RedisTaskEventLog: live readers and the TTL', () => {
  test('a task silent past 1.5 × ttlSeconds while a reader waits keeps its keys: the next append is read', async () => {
    // blockMs above the TTL: before the fix a reader blocked 3 s between refreshes, and the
    // task's keys (1.5 s) were gone: the append failed "unknown task".
    const log = logOn(client!, { ttlSeconds: 1, blockMs: 3000 });
    const taskId = await log.createTask();
    const events = await opened(log, { taskId });
    const first = events.next();
    await sleep(2600);
    expect((await log.append(taskId, 'com.example.step', { n: 0 })).seq).toBe(0);
    const got = await bounded(first, 5000, 'the waiting reader');
    expect(got.value).toMatchObject({ seq: 0, taskId });
    await log.complete(taskId);
    expect((await bounded(events.next(), 5000, 'the end')).done).toBe(true);
  });

  test('a reader that pauses past the TTL gets the events it was owed, then an error, never a wait for ever', async () => {
    const log = logOn(client!, { ttlSeconds: 1, blockMs: 200 });
    const taskId = await log.createTask();
    for (let n = 0; n < 3; n++) await log.append(taskId, 'com.example.step', { n });
    const events = await opened(log, { taskId });
    expect((await events.next()).value).toMatchObject({ seq: 0 });
    // The reader pauses (reads nothing) while the task's keys expire (1.5 s unused).
    await sleep(2600);
    const rest: TaskEvent[] = [];
    const ended = bounded(
      (async () => {
        for (;;) {
          const r = await events.next();
          if (r.done) return 'done';
          rest.push(r.value);
        }
      })(),
      5000,
      'the reader after its pause',
    ).catch((e: unknown) => e);
    const outcome = await ended;
    expect(rest.map((e) => e.seq)).toEqual([1, 2]);
    expect(outcome).toBeInstanceOf(TaskExpiredError);
    expect((outcome as Error).message).toBe(
      `task ${JSON.stringify(taskId)} expired while its reader was away (unused longer than 1.5 × ttlSeconds): its events from seq 3 on are gone`,
    );
  });

  test('a reader reading a long backlog slowly keeps the task alive', async () => {
    const log = logOn(client!, { ttlSeconds: 1, blockMs: 200 });
    const taskId = await log.createTask();
    for (let n = 0; n < 4; n++) await log.append(taskId, 'com.example.step', { n });
    const events = await opened(log, { taskId });
    const seqs: number[] = [];
    for (let i = 0; i < 4; i++) {
      seqs.push((await events.next()).value!.seq);
      await sleep(600); // 2.4 s in all: past 1.5 × the TTL, in pauses shorter than half of it
    }
    expect(seqs).toEqual([0, 1, 2, 3]);
    expect((await log.append(taskId, 'com.example.step', { n: 4 })).seq).toBe(4);
    expect((await bounded(events.next(), 5000, 'the live event')).value).toMatchObject({ seq: 4 });
    await events.return(undefined);
  });
});

describe('RedisTaskEventLog on a Redis of its own', () => {
  test('a maxmemory-policy set while the log runs is refused from then on', async () => {
    await withRedis(PERSISTENCE[0]!, async (c) => {
      const log = logOn(c, { settingsCheckMs: 0 });
      const taskId = await log.createTask();
      await log.append(taskId, 'com.example.step', {});
      await c.sendCommand(['CONFIG', 'SET', 'maxmemory-policy', 'allkeys-lru']);
      const refusal = /^Redis maxmemory-policy is allkeys-lru: /;
      await expect(log.append(taskId, 'com.example.step', {})).rejects.toThrow(RedisSetupError);
      await expect(log.append(taskId, 'com.example.step', {})).rejects.toThrow(refusal);
      await expect(log.openStream({ taskId })).rejects.toThrow(refusal);
      await expect(log.createTask()).rejects.toThrow(refusal);
      // Set right again, the log goes on.
      await c.sendCommand(['CONFIG', 'SET', 'maxmemory-policy', 'noeviction']);
      expect((await log.append(taskId, 'com.example.step', {})).seq).toBe(1);
    });
  });

  test('200 waiting readers share one connection, and each gets its own task’s events', async () => {
    await withRedis(PERSISTENCE[0]!, async (c) => {
      const log = logOn(c, { blockMs: 500 });
      const clients = async () =>
        Number(
          /connected_clients:(\d+)/.exec(String(await c.sendCommand(['INFO', 'clients'])))![1],
        );
      const before = await clients();
      const tasks = await Promise.all(Array.from({ length: 200 }, () => log.createTask()));
      const readers = await Promise.all(tasks.map((taskId) => opened(log, { taskId })));
      const firsts = readers.map((r) => r.next());
      // Every reader is waiting (nothing appended yet): at most one connection more.
      await sleep(300);
      expect(log.liveConnections).toBe(1);
      expect((await clients()) - before).toBeLessThanOrEqual(1);
      await Promise.all(tasks.map((t, i) => log.append(t, 'com.example.step', { i })));
      const got = await bounded(Promise.all(firsts), 10_000, 'the readers');
      expect(got.map((r) => [r.value?.taskId, r.value?.seq])).toEqual(tasks.map((t) => [t, 0]));
      await Promise.all(readers.map((r) => r.return(undefined)));
    });
  });
});
