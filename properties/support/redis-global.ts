/**
 * vitest globalSetup: one Redis for every suite that needs it (`REDIS_URL`, else a
 * `redis-server` of its own on a free loopback port, no persistence), stopped after the run.
 * Without one, it prints one line naming the suites that will not run; under `CI=true` (set by
 * .ci/run) it fails the run instead.
 */
import type { TestProject } from 'vitest/node';
import { REDIS_INSTALL_HINT, startRedis } from '../../src/conformance/adapters/redis-server.js';
import { REDIS_SUITES } from './redis.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const redis = await startRedis();
  if (redis.url === null) {
    const line = `redis suites not run (${REDIS_SUITES.join(', ')}): ${redis.reason}`;
    if (process.env.CI === 'true') {
      throw new Error(`${line} — CI requires them (${REDIS_INSTALL_HINT})`);
    }
    console.warn(line);
    project.provide('redisUrl', '');
    return async () => {};
  }
  project.provide('redisUrl', redis.url);
  return () => redis.stop();
}
