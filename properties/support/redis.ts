/**
 * Redis for the suites that need it: the URL the globalSetup (redis-global.ts) provides, a
 * client, and a key prefix of each test's own (suites share one Redis).
 */
import { randomBytes } from 'node:crypto';
import { createClient } from 'redis';
import { inject } from 'vitest';
import type { RedisClient } from '../../src/redis/index.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The Redis URL of the run (`''`: none, the Redis suites are skipped). */
    redisUrl: string;
  }
}

/** The suites that need Redis (printed when they cannot run). */
export const REDIS_SUITES = [
  'properties/redis/store-contract.test.ts',
  'properties/redis/multi-instance.test.ts',
  'properties/redis/store-setup.test.ts',
  'properties/redis/task-log-contract.test.ts',
  'properties/redis/task-log-ttl.test.ts',
];

/** The run's Redis URL, `''` when there is none. */
export function redisUrl(): string {
  return inject('redisUrl') ?? '';
}

/** A connected client that fails fast when Redis goes away (no offline queue). */
export async function connectRedis(url = redisUrl()): Promise<RedisClient> {
  const client = createClient({ url, disableOfflineQueue: true });
  client.on('error', () => {});
  await client.connect();
  return client as RedisClient;
}

/** A key prefix of the test's own. */
export function uniquePrefix(): string {
  return `t${randomBytes(4).toString('hex')}`;
}
