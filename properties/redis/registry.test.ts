/**
 * The session registry and the instance heartbeat under a Redis that accepts commands and never
 * answers (paused with CLIENT PAUSE, as a hung or partitioned Redis would be): every call fails
 * with `EventStoreUnavailableError` at its bound instead of holding the caller (a request for
 * a session, a follower asking whether a writer is alive) for as long as Redis stays silent.
 */
import { describe, expect, test } from 'vitest';
import {
  EventStoreUnavailableError,
  InstanceHeartbeat,
  SessionRegistry,
} from '../../src/redis/index.js';
import { findRedisServer } from '../../src/conformance/adapters/redis-server.js';
import { connectRedis } from '../support/redis.js';
import { crashableRedis, PERSISTENCE } from '../support/redis-crash.js';

describe.skipIf(findRedisServer() === null)('registry and heartbeat: Redis paused', () => {
  test('every call past its bound fails with "did not answer … no reply within", never waits for Redis', async () => {
    const redis = await crashableRedis(PERSISTENCE[0]!);
    const c = await connectRedis(redis.url);
    const other = await connectRedis(redis.url);
    try {
      const registry = new SessionRegistry(c, 'p', 3600, 200);
      const heartbeat = new InstanceHeartbeat(c, 'i1', 3000, 'p');
      const record = { epoch: 'e1', initialize: {}, createdBy: 'i1' };
      await registry.register('s1', record);
      expect(await registry.lookup('s1')).toEqual(record);
      // Longer than any bound below: an unbounded call would still be waiting when it ends.
      await other.sendCommand(['CLIENT', 'PAUSE', '30000', 'ALL']);
      const calls: [Promise<unknown>, string][] = [
        [registry.register('s2', record), 'SET: no reply within 200 ms'],
        [registry.lookup('s1'), 'GET: no reply within 200 ms'],
        [registry.touch('s1'), 'EXPIRE: no reply within 200 ms'],
        [registry.remove('s1'), 'DEL: no reply within 200 ms'],
        [heartbeat.alive('i2'), 'EXISTS: no reply within 2000 ms'],
      ];
      for (const [call, message] of calls) {
        const error = await call.catch((e: unknown) => e);
        expect(error).toBeInstanceOf(EventStoreUnavailableError);
        expect((error as Error).message).toBe(`Redis did not answer ${message}`);
      }
    } finally {
      c.destroy();
      other.destroy();
      await redis.stop();
    }
  });
});
