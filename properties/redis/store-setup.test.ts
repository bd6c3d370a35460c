/**
 * What the Redis store refuses to start on, and what it keeps alive: each refusal against a
 * real redis-server started in that set-up (eviction policies, `restart: 'keep'` under each
 * persistence mode, and the same settings met again after a restart); TTLs that follow use
 * (a short TTL, a slow writer, a reader alone); and a follower that must start after what its
 * replay sent (a store that follows from the head it resolved before the replay sends an
 * event twice).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { findRedisServer } from '../../src/conformance/adapters/redis-server.js';
import {
  RedisContinuityEventStore,
  RedisSetupError,
  setupRefusal,
  type RedisClient,
  type RedisContinuityEventStoreOptions,
} from '../../src/redis/index.js';
import { UnreplayableCursorError, type StoredMessage } from '../../src/runtime/index.js';
import { connectRedis, redisUrl, uniquePrefix } from '../support/redis.js';
import { PERSISTENCE, withRedis, type Persistence } from '../support/redis-crash.js';

const msg = (i: number): StoredMessage => ({ jsonrpc: '2.0', method: 'm', params: { i } });
const response = (id: number): StoredMessage => ({ jsonrpc: '2.0', id, result: { ok: true } });
const streamOf = (id: string) => id.slice(0, id.lastIndexOf('-'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function replay(store: RedisContinuityEventStore, cursor: string) {
  const sent: { id: string; message: StoredMessage }[] = [];
  await store.replayEventsAfter(cursor, {
    send: async (id, message) => void sent.push({ id, message }),
  });
  return sent;
}

/** The refusal texts, as a user reads them (docs/stores.md quotes them). */
const EVICTION = (policy: string) =>
  `Redis maxmemory-policy is ${policy}: an eviction policy drops single keys of a session, and ` +
  `event ids would be issued twice; set maxmemory-policy noeviction, or pass allowEviction: ` +
  `true to accept it (every cursor is then refused after any eviction)`;
const KEEP = (aof: string, fsync: string) =>
  `restart: 'keep' needs appendonly yes and appendfsync always, and Redis has appendonly ` +
  `${aof}, appendfsync ${fsync}: a crash would lose acknowledged events and issue their ids ` +
  `again; use restart: 'new-incarnation' (the default)`;

async function ready(c: RedisClient): Promise<void> {
  for (let i = 0; i < 200 && !c.isReady; i++) await sleep(50);
}

const NONE = PERSISTENCE[0]!;
const withPolicy = (policy: string): Persistence => ({
  name: `${NONE.name}, ${policy}`,
  args: [...NONE.args, '--maxmemory-policy', policy],
});

describe.skipIf(findRedisServer() === null)('refuses what it cannot promise', () => {
  test.each(['allkeys-lru', 'volatile-lru', 'allkeys-random', 'volatile-ttl'])(
    'maxmemory-policy %s: verify, append and replay all fail with one clear error',
    async (policy) => {
      await withRedis(withPolicy(policy), async (c) => {
        const store = new RedisContinuityEventStore({ client: c, epoch: 'ev', prefix: 'p' });
        const error = await store.verify().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(RedisSetupError);
        expect((error as Error).name).toBe('RedisSetupError');
        expect((error as Error).message).toBe(EVICTION(policy));
        await expect(store.storeEvent('A', msg(1))).rejects.toThrow(EVICTION(policy));
        await expect(replay(store, 'ev-s1-1')).rejects.toThrow(EVICTION(policy));
        // Nothing was written.
        expect(await c.sendCommand<string[]>(['KEYS', 'p:*'])).toEqual([]);
      });
    },
  );

  test('allowEviction with restart: keep is refused at construction', () => {
    expect(
      () =>
        new RedisContinuityEventStore({
          client: {} as RedisClient,
          allowEviction: true,
          restart: 'keep',
        }),
    ).toThrow(/^allowEviction needs restart: 'new-incarnation'$/);
  });

  test('allowEviction accepts the policy, and then every cursor is refused after any eviction (keys of others evicted, the session untouched)', async () => {
    await withRedis(withPolicy('volatile-lru'), async (c) => {
      // ttlSeconds 0: the session's keys carry no TTL, so volatile-lru evicts only the filler.
      const options = { client: c, epoch: 'ae', prefix: 'p', ttlSeconds: 0 };
      const store = new RedisContinuityEventStore({ ...options, allowEviction: true });
      await store.verify();
      const first = await store.storeEvent('A', msg(1));
      await store.storeEvent('A', msg(2));
      expect(await replay(store, first)).toHaveLength(2);
      const evicted = async () =>
        Number(/evicted_keys:(\d+)/.exec(await c.sendCommand<string>(['INFO', 'stats']))![1]);
      expect(await evicted()).toBe(0);
      const used = Number(
        /used_memory:(\d+)/.exec(await c.sendCommand<string>(['INFO', 'memory']))![1],
      );
      await c.sendCommand(['CONFIG', 'SET', 'maxmemory', String(used + 2_000_000)]);
      const filler = 'x'.repeat(100_000);
      for (let i = 0; i < 60; i++) {
        await c.sendCommand(['SET', `filler:${i}`, filler, 'EX', '1000']);
      }
      await c.sendCommand(['CONFIG', 'SET', 'maxmemory', '0']);
      expect(await evicted()).toBeGreaterThan(0);
      // The session's own keys are all there: only the eviction count says anything happened.
      expect(await c.sendCommand<number>(['EXISTS', `p:{ae}:heads`])).toBe(1);
      const sent: string[] = [];
      const error = await store
        .replayEventsAfter(first, { send: async (id) => void sent.push(id) })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnreplayableCursorError);
      expect((error as Error).message).toMatch(/from before an eviction or a Redis restart/);
      expect(sent).toEqual([]);
      // The next append is a new incarnation: a new stream number, from 1.
      const next = await store.storeEvent('A', msg(3));
      expect(streamOf(next)).not.toBe(streamOf(first));
      expect(next.endsWith('-1')).toBe(true);
    });
  });

  describe.each(PERSISTENCE)("restart: 'keep' on Redis with $name", (persistence) => {
    const always = persistence.name.includes('always');
    test(
      always ? 'is accepted: appends and replays' : 'is refused with one clear error',
      async () => {
        await withRedis(persistence, async (c) => {
          const store = new RedisContinuityEventStore({
            client: c,
            epoch: 'kp',
            prefix: 'p',
            restart: 'keep',
          });
          if (always) {
            await store.verify();
            const first = await store.storeEvent('A', msg(1));
            await store.storeEvent('A', msg(2));
            expect(await replay(store, first)).toHaveLength(2);
            return;
          }
          const aof = persistence.args.includes('yes') ? 'yes' : 'no';
          const fsync = persistence.args.includes('--appendfsync')
            ? persistence.args[persistence.args.indexOf('--appendfsync') + 1]!
            : 'everysec';
          await expect(store.verify()).rejects.toThrow(KEEP(aof, fsync));
          const error = await store.storeEvent('A', msg(1)).catch((e: unknown) => e);
          expect(error).toBeInstanceOf(RedisSetupError);
          expect((error as Error).message).toBe(KEEP(aof, fsync));
          // The default store is honest there, and is accepted.
          await new RedisContinuityEventStore({ client: c, epoch: 'kq', prefix: 'p' }).verify();
        });
      },
    );
  });

  test('checked again when Redis restarts: a store that lives on meets an eviction policy after the restart', async () => {
    await withRedis(NONE, async (c, redis) => {
      const store = new RedisContinuityEventStore({ client: c, epoch: 'rs', prefix: 'p' });
      const first = await store.storeEvent('A', msg(1));
      await redis.kill9();
      await redis.restart(['--maxmemory-policy', 'allkeys-lru']);
      await ready(c);
      await expect(store.storeEvent('A', msg(2))).rejects.toThrow(EVICTION('allkeys-lru'));
      await expect(replay(store, first)).rejects.toThrow(EVICTION('allkeys-lru'));
    });
  });

  test("checked again when Redis restarts: restart: 'keep' after Redis came back with appendfsync everysec", async () => {
    const always = PERSISTENCE.find((p) => p.name.includes('always'))!;
    await withRedis(always, async (c, redis) => {
      const store = new RedisContinuityEventStore({
        client: c,
        epoch: 'rk',
        prefix: 'p',
        restart: 'keep',
      });
      await store.storeEvent('A', msg(1));
      await redis.kill9();
      await redis.restart(['--appendfsync', 'everysec']);
      await ready(c);
      await expect(store.storeEvent('A', msg(2))).rejects.toThrow(KEEP('yes', 'everysec'));
    });
  });

  test('setupRefusal accepts only noeviction, and keep only with AOF always', () => {
    const plain = { restart: 'new-incarnation' as const, allowEviction: false };
    const keep = { restart: 'keep' as const, allowEviction: false };
    const base = { run: 'r', policy: 'noeviction', aof: false };
    expect(setupRefusal(base, plain)).toBeNull();
    expect(setupRefusal({ ...base, policy: 'allkeys-lfu' }, plain)).toBe(EVICTION('allkeys-lfu'));
    expect(
      setupRefusal({ ...base, policy: 'allkeys-lfu' }, { ...plain, allowEviction: true }),
    ).toBeNull();
    expect(setupRefusal({ ...base, aof: true, fsync: 'always' }, keep)).toBeNull();
    expect(setupRefusal({ ...base, aof: false, fsync: 'always' }, keep)).toBe(KEEP('no', 'always'));
    expect(setupRefusal({ ...base, aof: true, fsync: 'no' }, keep)).toBe(KEEP('yes', 'no'));
  });
});

test('docs/stores.md quotes each refusal exactly as a user reads it', () => {
  const docs = readFileSync(new globalThis.URL('../../docs/stores.md', import.meta.url), 'utf8');
  const quoted = docs
    .split('\n')
    .filter((l) => l.startsWith('  > '))
    .map((l) => l.slice(4));
  expect(quoted).toEqual([
    EVICTION('allkeys-lru'),
    KEEP('no', 'everysec'),
    "allowEviction needs restart: 'new-incarnation'",
  ]);
});

const URL = redisUrl();
let client: RedisClient | undefined;
beforeAll(async () => {
  if (URL) client = await connectRedis(URL);
});
afterAll(async () => {
  await client?.close();
});
const opts = (o: Partial<RedisContinuityEventStoreOptions> = {}) => ({
  client: client!,
  prefix: uniquePrefix(),
  ...o,
});

describe.skipIf(!URL)('TTL follows use', () => {
  test('a slow writer (an event every 250 ms, TTL 1 s, for 2.5 s): never renumbered, a 250 ms old cursor replayed', async () => {
    const store = new RedisContinuityEventStore(opts({ ttlSeconds: 1 }));
    const ids: string[] = [];
    for (let i = 1; i <= 10; i++) {
      ids.push(await store.storeEvent('A', msg(i)));
      await sleep(250);
    }
    expect(new Set(ids.map(streamOf)).size).toBe(1);
    expect(ids.map((id) => Number(id.split('-').at(-1)))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const sent = await replay(store, ids[8]!);
    expect(sent.map((e) => e.id)).toEqual(['', ids[9]]);
  });

  test('a reader alone (a replay every 250 ms, TTL 1 s, for 2.5 s): the stream stays replayable', async () => {
    const store = new RedisContinuityEventStore(opts({ ttlSeconds: 1 }));
    const first = await store.storeEvent('A', msg(1));
    const second = await store.storeEvent('A', msg(2));
    for (let i = 0; i < 10; i++) {
      await sleep(250);
      const sent = await replay(store, first);
      expect(sent.map((e) => e.id)).toEqual(['', second]);
    }
  });

  /**
   * The refresh is scheduled by the writer (no `PTTL` per append): it must come again once half
   * the TTL has passed. A writer every 0.8 × the TTL keeps the stream only if its second append
   * refreshed; a store that waits a whole TTL lets the keys expire before the third.
   */
  async function sparseWriter(store: RedisContinuityEventStore): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 1; i <= 3; i++) {
      ids.push(await store.storeEvent('A', msg(i)));
      if (i < 3) await sleep(800);
    }
    return ids;
  }

  test('a writer every 0.8 × the TTL (TTL 1 s): one stream, numbered on', async () => {
    const ids = await sparseWriter(new RedisContinuityEventStore(opts({ ttlSeconds: 1 })));
    expect(new Set(ids.map(streamOf)).size).toBe(1);
    expect(ids.map((id) => Number(id.split('-').at(-1)))).toEqual([1, 2, 3]);
  });

  test('kill: a store that refreshes the TTL only once a whole TTL has passed loses the stream to a writer every 0.8 × the TTL', async () => {
    class RefreshesLate extends RedisContinuityEventStore {
      protected override readonly refreshAfter = 1;
    }
    const ids = await sparseWriter(new RefreshesLate(opts({ ttlSeconds: 1 })));
    // The keys expired 1.5 s after the first append: the third append numbers a new stream.
    expect(new Set(ids.map(streamOf)).size).toBe(2);
    expect(Number(ids[2]!.split('-').at(-1))).toBe(1);
  });

  test('unused for longer than 1.5 × the TTL: every key is gone', async () => {
    const store = new RedisContinuityEventStore(opts({ ttlSeconds: 1 }));
    const first = await store.storeEvent('A', msg(1));
    await sleep(1700);
    expect(await client!.sendCommand<string[]>(['KEYS', `${store.base}:*`])).toEqual([]);
    await expect(replay(store, first)).rejects.toThrow(/is not retained/);
  });
});

/**
 * The mistake: the follow starts at the head resolved before the replay, so what was appended
 * during the replay (and sent by it) is forwarded again.
 */
class FollowsFromOldHead extends RedisContinuityEventStore {
  private resolved = 0;
  override async streamState(k: string) {
    const s = await super.streamState(k);
    if (s) this.resolved = s.head;
    return s;
  }
  protected override startFollower(
    k: string,
    label: string,
    _after: number,
    lastWriter: string,
    send: (eventId: string, message: StoredMessage) => Promise<void>,
  ): void {
    super.startFollower(k, label, this.resolved, lastWriter, send);
  }
}

describe.skipIf(!URL)('a follower after a replay', () => {
  /** `a` writes S; `b` resumes at `a`'s first event, and `a` appends while the replay sends. */
  async function appendDuringReplay(
    B: typeof RedisContinuityEventStore,
  ): Promise<{ ids: string[]; S: string }> {
    const shared = { client: client!, prefix: uniquePrefix(), epoch: 'fo' };
    const a = new RedisContinuityEventStore({ ...shared, instanceId: 'a' });
    const b = new B({ ...shared, instanceId: 'b', follow: { blockMs: 100, maxMs: 10_000 } });
    const cursor = await a.storeEvent('S', msg(1));
    const S = streamOf(cursor);
    await a.storeEvent('S', msg(2));
    const ids: string[] = [];
    await b.replayEventsAfter(cursor, {
      send: async (id) => {
        ids.push(id);
        if (id === `${S}-2`) await a.storeEvent('S', msg(3));
      },
    });
    await a.storeEvent('S', response(7));
    for (let i = 0; i < 250 && b.following > 0; i++) await sleep(20);
    expect(b.following).toBe(0);
    return { ids, S };
  }

  test('follows from what the replay sent: every event once', async () => {
    const { ids, S } = await appendDuringReplay(RedisContinuityEventStore);
    expect(ids).toEqual(['', `${S}-2`, `${S}-3`, `${S}-4`]);
  });

  test('kill: a follower started at the pre-replay head sends the event appended during the replay twice', async () => {
    const { ids, S } = await appendDuringReplay(FollowsFromOldHead);
    expect(ids.filter((id) => id === `${S}-3`)).toHaveLength(2);
  });
});
