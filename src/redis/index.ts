/**
 * The Redis entry: `RedisContinuityEventStore`, the `ContinuityEventStore` contract on Redis
 * Streams shared by every instance of a server, and what lets an instance serve a session it
 * did not create (`SessionRegistry`, `adoptSession`, `InstanceHeartbeat`). It needs the
 * package `redis` (node-redis 6, an optional peer dependency); the main and runtime entries
 * never load it.
 *
 * @module mcp-resumption/redis
 */
export {
  APPEND_SCRIPT,
  EventStoreOutOfMemoryError,
  EventStoreUnavailableError,
  RedisContinuityEventStore,
  RedisSetupError,
  setupRefusal,
  WRITER_LOST_METHOD,
  type FollowOptions,
  type RedisClient,
  type RedisContinuityEventStoreOptions,
  type RedisSetup,
  type WriterLost,
} from './store.js';
export * from './registry.js';
export * from './resume.js';
export * from './task-log.js';
