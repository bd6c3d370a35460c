/**
 * `RedisContinuityEventStore`: the `ContinuityEventStore` contract (ids `<epoch>-s<k>-<seq>`, a
 * contiguous per-stream sequence, bounded retention with a stated floor, refusal of every
 * cursor it cannot replay, the in-band replay acknowledgment) on Redis Streams, shared by every
 * instance of a server. The stream number `k` is the stream's incarnation: drawn at random by
 * its first append, and drawn again after a Redis restart, so that no id is issued twice for
 * different messages whatever Redis lost. See docs/stores.md for the design and the Redis
 * settings that keep a resume honest.
 */
import { createHash, randomBytes, randomInt, randomUUID } from 'node:crypto';
import type { createClient } from 'redis';
import {
  CONTINUITY_ID_PATTERN,
  REPLAY_ACK_METHOD,
  UnreplayableCursorError,
  type EventStoreLike,
  type ReplayAck,
  type StoredMessage,
} from '../runtime/continuity-store.js';

/** A connected node-redis 6 client (`createClient()` of the package `redis`). */
export type RedisClient = ReturnType<typeof createClient>;

/**
 * Redis did not answer (not connected, or no reply within the command timeout), or refused to
 * store (see {@link EventStoreOutOfMemoryError}). The SDK
 * transports answer a resume that meets it with **500** (`Error replaying events`) and report
 * it through `onerror`; a host that looks the session up first (see `SessionRegistry`) answers
 * **503** before the transport is involved.
 */
export class EventStoreUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EventStoreUnavailableError';
  }
}

/**
 * Redis answered `OOM` (`maxmemory` reached with `maxmemory-policy noeviction`): it refuses to
 * store anything until memory is freed. Nothing was stored; the message says so.
 */
export class EventStoreOutOfMemoryError extends EventStoreUnavailableError {
  constructor(message: string) {
    super(message);
    this.name = 'EventStoreOutOfMemoryError';
  }
}

/**
 * The append, as one Lua script: check the incarnation, find (or number) the stream, `HINCRBY`
 * its head, `XADD` the event under the explicit id `0-<head>` with `MAXLEN <capacity>` (exact),
 * refresh the TTLs. Lua, not `MULTI`: the entry id depends on the result of the `HINCRBY`, and
 * a command queued in a `MULTI` cannot use the result of another queued command; a
 * `WATCH`/`MULTI` retry loop would work but retries under contention (two instances appending
 * to one stream), whereas a script runs to completion without interleaving, once.
 *
 * The incarnation: with `restart: 'new-incarnation'`, the session's `meta` holds the `run_id`
 * of the Redis process that wrote it. A different `run_id` means Redis restarted since, and
 * what it reloaded (nothing, an RDB snapshot, an AOF) may be older than what was issued: the
 * script then drops every stream of the session, so each is numbered again.
 *
 * Reading `run_id` (`INFO server`) costs more than the rest of the append, so the script reads
 * it only when the caller holds no `run_id` equal to `meta`'s (ARGV 8). A caller may hold one
 * only for its own copy of the script (this text with a random comment, run by SHA), loaded
 * with an `EVAL` that read `INFO` and returned the `run_id` (element 3 of the reply). Redis 7
 * keeps no script across a restart (not in RDB, not in AOF) and replicates scripts' effects,
 * never their text, so that copy runs by SHA only in the process that answered that `EVAL`:
 * the `run_id` it returned is still the server's. Elsewhere the SHA is unknown (`NOSCRIPT`)
 * and the caller loads a new copy with `EVAL`, holding nothing. Before Redis 7 an RDB file
 * could bring scripts back, so the script returns no `run_id` to hold there, and reads `INFO`
 * on every append. The store's (protected) `append` is the caller's side.
 *
 * A stream's number
 * is the candidate drawn at random by the caller (12 digits), moved on past any number the
 * session already uses: after a loss no stream takes a lost stream's number (but with chance
 * about n/10^12), so no cursor is ever served another stream's events and no id string is
 * issued twice.
 *
 * With `allowEviction` (ARGV 8 `'evict'`), `meta.run` is the `run_id` and the server's
 * `evicted_keys` count (`INFO stats`), read on every append: any eviction in Redis since the
 * session's log was written (a dropped `heads` hash would restart a counter without a restart)
 * drops every stream of the session, as a restart does, and so does a `meta` that is gone.
 *
 * TTL: an append (and a replay, see `touch`) sets the session's keys and the stream's key to
 * expire 1.5 × the TTL later when the caller asks for it (ARGV 9 `'1'`) or the stream is new
 * (numbered by this append). The caller asks on its first append to a stream and whenever half
 * the TTL has passed since it last asked (timed from before it sent that append, so Redis set
 * the expiry no earlier): after any append the keys live at least the TTL (1.5 × the TTL from
 * the last refresh, less at most half of it), so a stream written or read within the TTL never
 * expires, without a `PTTL` read per append; an abandoned session goes within 1.5 × the TTL.
 *
 * KEYS: 1 ids (stream id → k), 2 names (k → stream id), 3 heads (k → head), 4 meta (`run`).
 * ARGV: 1 key base, 2 stream id, 3 message JSON, 4 writer, 5 capacity, 6 TTL seconds (0: none),
 * 7 a random candidate number, 8 `'keep'` (`restart: 'keep'`), `'evict'` (`allowEviction`) or
 * the `run_id` the caller holds (`''`: none), 9 `'1'` to refresh the TTLs. Reply:
 * `[k, seq, run_id to hold]`.
 * The stream's key, `<base>:s<k>`, is derived in the script; every key carries the session's
 * hash tag `{epoch}`, so in a cluster they all live in one slot.
 */
export const APPEND_SCRIPT = `
local held = ARGV[8]
if held == 'keep' then
  held = ''
elseif held == 'evict' then
  local info = redis.call('INFO', 'server') .. redis.call('INFO', 'stats')
  local run = string.match(info, 'run_id:(%x+)') .. ':' .. string.match(info, 'evicted_keys:(%d+)')
  if redis.call('HGET', KEYS[4], 'run') ~= run then
    for _, n in ipairs(redis.call('HKEYS', KEYS[2])) do redis.call('DEL', ARGV[1] .. ':s' .. n) end
    redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
    redis.call('HSET', KEYS[4], 'run', run)
  end
  held = ''
else
  local seen = redis.call('HGET', KEYS[4], 'run')
  if seen ~= held then
    local info = redis.call('INFO', 'server')
    local run = string.match(info, 'run_id:(%x+)')
    if seen ~= run then
      redis.call('HSET', KEYS[4], 'run', run)
      if seen then
        for _, n in ipairs(redis.call('HKEYS', KEYS[2])) do redis.call('DEL', ARGV[1] .. ':s' .. n) end
        redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
      end
    end
    held = ''
    if tonumber(string.match(info, 'redis_version:(%d+)')) >= 7 then held = run end
  end
end
local refresh = ARGV[9] == '1'
local k = redis.call('HGET', KEYS[1], ARGV[2])
if not k then
  k = ARGV[7]
  while redis.call('HEXISTS', KEYS[2], k) == 1 do k = tostring(tonumber(k) + 1) end
  redis.call('HSET', KEYS[1], ARGV[2], k)
  redis.call('HSET', KEYS[2], k, ARGV[2])
  refresh = true
end
local seq = redis.call('HINCRBY', KEYS[3], k, 1)
local skey = ARGV[1] .. ':s' .. k
redis.call('XADD', skey, 'MAXLEN', ARGV[5], '0-' .. seq, 'm', ARGV[3], 'w', ARGV[4])
local ttl = tonumber(ARGV[6]) * 1500
if refresh and ttl > 0 then
  for i = 1, 4 do redis.call('PEXPIRE', KEYS[i], ttl) end
  redis.call('PEXPIRE', skey, ttl)
end
return {k, seq, held}
`;

/** Options of a {@link RedisContinuityEventStore}. */
export interface RedisContinuityEventStoreOptions {
  /** A connected node-redis client, shared (the store never closes it). */
  client: RedisClient;
  /**
   * The session's epoch (`[0-9a-z]+`): part of every id and of every key. Every instance that
   * serves the session must use the same one (keep it in the session registry); random by
   * default.
   */
  epoch?: string;
  /** Key prefix. Default `mcpr`. Keys are `<prefix>:{<epoch>}:…`. */
  prefix?: string;
  /** Events retained per stream (`XADD … MAXLEN`, exact). Default 1024. */
  capacity?: number;
  /**
   * Seconds a session's keys live at least after their last use (an append or a replay; see
   * {@link APPEND_SCRIPT}): a stream written or read within it never expires, and an abandoned
   * session's keys are gone within 1.5 × it. Default 3600; 0 keeps them until deleted.
   */
  ttlSeconds?: number;
  /** Entries read per `XRANGE … COUNT` page during a replay. Default 256. */
  pageSize?: number;
  /** Bound (ms) on each Redis command; beyond it {@link EventStoreUnavailableError}. Default 2000. */
  commandTimeoutMs?: number;
  /**
   * This server instance's id, written with each event (field `w`). Needed by `follow`; any
   * `[0-9a-zA-Z_-]+`. Default: random.
   */
  instanceId?: string;
  /**
   * Keep following the stream after a replay and forward, through the replay's `send`, the
   * events other instances append to it (their transports cannot write to a stream this
   * instance serves). See {@link FollowOptions}. Default off.
   */
  follow?: FollowOptions;
  /** Refuse through `getStreamIdForEventId` (SDK answer 400), as `ContinuityEventStore`'s. */
  precheck?: boolean;
  /**
   * What a Redis restart does to the session's log. `'new-incarnation'` (default): every stream
   * is numbered again at its next append and every cursor from before the restart is refused,
   * whatever Redis reloaded: honest under any persistence. `'keep'`: cursors stay valid across
   * a restart; honest only when Redis reloads every acknowledged write (`appendonly yes`; see
   * docs/stores.md), never with RDB snapshots. Every instance serving the session must use the
   * same. The store refuses `'keep'` (with {@link RedisSetupError}) unless Redis runs with
   * `appendonly yes` and `appendfsync always`.
   */
  restart?: 'new-incarnation' | 'keep';
  /**
   * Accept a Redis whose `maxmemory-policy` evicts keys (anything but `noeviction`; refused
   * with {@link RedisSetupError} by default). Then any eviction in Redis (its `evicted_keys`
   * count moved) starts a new incarnation, as a restart does: every cursor from before it is
   * refused and every stream is numbered again. Costs an `INFO` on every append. Default off;
   * needs `restart: 'new-incarnation'`.
   */
  allowEviction?: boolean;
}

/**
 * The Redis the store was given cannot keep the store's promise: an eviction policy without
 * `allowEviction`, or `restart: 'keep'` without `appendonly yes` and `appendfsync always`.
 * Thrown by {@link RedisContinuityEventStore.verify} (call it at start-up) and by every append
 * or replay until the setting is fixed; checked again after Redis restarts. Not
 * {@link EventStoreUnavailableError}: retrying does not help.
 */
export class RedisSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RedisSetupError';
  }
}

/** What the store checks of Redis, from `INFO` (and `CONFIG GET appendfsync` for `'keep'`). */
export interface RedisSetup {
  /** `run_id`: the Redis process the settings were read from. */
  run: string;
  /** `maxmemory_policy`. */
  policy: string;
  /** `aof_enabled` (`appendonly yes`). */
  aof: boolean;
  /** `appendfsync` (read for `restart: 'keep'` only). */
  fsync?: string;
}

/** `field:value` of an `INFO` reply. */
const infoField = (info: string, field: string): string | undefined =>
  new RegExp(`^${field}:(.*?)\\r?$`, 'm').exec(info)?.[1];

/** The refusal of `setup` for a store with these options, `null` when it can keep its promise. */
export function setupRefusal(
  setup: RedisSetup,
  options: { restart: 'new-incarnation' | 'keep'; allowEviction: boolean },
): string | null {
  if (setup.policy !== 'noeviction' && !options.allowEviction) {
    return (
      `Redis maxmemory-policy is ${setup.policy}: an eviction policy drops single keys of a ` +
      `session, and event ids would be issued twice; set maxmemory-policy noeviction, or pass ` +
      `allowEviction: true to accept it (every cursor is then refused after any eviction)`
    );
  }
  if (options.restart === 'keep' && !(setup.aof && setup.fsync === 'always')) {
    return (
      `restart: 'keep' needs appendonly yes and appendfsync always, and Redis has appendonly ` +
      `${setup.aof ? 'yes' : 'no'}, appendfsync ${setup.fsync ?? 'unknown'}: a crash would lose ` +
      `acknowledged events and issue their ids again; use restart: 'new-incarnation' (the default)`
    );
  }
  return null;
}

/**
 * The setting checked last, per client and kind of store (`keep`, `evict`, plain): the
 * `run_id` of the Redis process it was read from. A refusal is never kept (checked again).
 */
const verified = new WeakMap<RedisClient, Map<string, Promise<string>>>();
/** The same, once the check passed: read without waiting by every append. */
const passed = new WeakMap<RedisClient, Map<string, string>>();

/** How a replay keeps following its stream for events written by other instances. */
export interface FollowOptions {
  /** Bound (ms) on each `XREAD BLOCK` (the follower re-checks its stop conditions between). */
  blockMs?: number;
  /** Bound (ms) on the whole follow: it stops then, whatever happened. Default 300000. */
  maxMs?: number;
  /**
   * Liveness of a writer instance (`true`: alive). When the stream's writer is gone before the
   * stream's JSON-RPC response was written, the follower sends a {@link WriterLost}
   * notification and stops: the client is told instead of waiting for ever.
   */
  writerAlive?: (instanceId: string) => Promise<boolean>;
  /**
   * Forward this instance's own entries too (default `false`: its transport writes them). Set
   * it when the resumed stream is served outside the transport (see `serveResume`).
   */
  forwardOwn?: boolean;
  /** Called once when the follow stops, whatever the reason. */
  onStop?: () => void;
}

/** The JSON-RPC method of the {@link WriterLost} notification. */
export const WRITER_LOST_METHOD = 'notifications/mcp-resumption/writer-lost';

/**
 * Sent (without an SSE id) by a following replay when the instance that was writing the stream
 * stopped before the stream's response: nothing more will come on this stream.
 */
export interface WriterLost {
  jsonrpc: '2.0';
  method: typeof WRITER_LOST_METHOD;
  params: {
    /** The stream (the `stream` group of the ids). */
    stream: string;
    /** The last sequence number stored. */
    head: number;
    /** The instance that stopped. */
    writer: string;
  };
}

/**
 * `reply`, or a rejection after `ms`. node-redis's own `timeout` bounds only the wait before a
 * command is written: once it is on the wire, a Redis that stops answering (paused, partitioned
 * with the connection still open) would hold the caller for ever. The session registry's and
 * the heartbeat's commands are bounded by it too (registry.ts); not part of the package's API
 * (src/redis/index.ts exports the store's public names one by one).
 */
export function withinMs<T>(reply: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const bound: Bound = { at: performance.now() + ms, ms, reject };
    bounds.add(bound);
    sweeper ??= setInterval(sweep, SWEEP_MS);
    // A failure after the bound has already been reported as the timeout (a promise settles
    // once: the later call is a no-op).
    reply.then(
      (value) => {
        bounds.delete(bound);
        resolve(value);
      },
      (error: unknown) => {
        bounds.delete(bound);
        reject(error as Error);
      },
    );
  });
}

/**
 * The bounds of the commands in flight, checked by one interval timer (every {@link SWEEP_MS}
 * while any is pending, none otherwise) instead of a timer per command: a timer, a race and a
 * `finally` per command cost the append about a quarter of its client-side time.
 */
interface Bound {
  at: number;
  ms: number;
  reject: (error: Error) => void;
}
const bounds = new Set<Bound>();
/** How late a bound may fire (ms). */
const SWEEP_MS = 10;
let sweeper: NodeJS.Timeout | undefined;
function sweep(): void {
  const now = performance.now();
  for (const b of bounds) {
    if (now < b.at) continue;
    bounds.delete(b);
    b.reject(new Error(`no reply within ${b.ms} ms`));
  }
  if (bounds.size === 0) {
    clearInterval(sweeper);
    sweeper = undefined;
  }
}

/** Streams whose last TTL refresh a store remembers (see `RedisContinuityEventStore.refreshed`). */
const REFRESH_RECORDS = 1024;

/** A client's copy of the append script (see {@link APPEND_SCRIPT}). */
interface ScriptCopy {
  /** The copy in Redis now: its SHA, and the `run_id` held for it (`''`: none). */
  loaded?: { sha: string; held: string };
  /** The `EVAL` loading a new copy, while it runs (other appends wait for it). */
  loading?: Promise<unknown>;
}

/**
 * One copy per client, shared by the stores (sessions) using it: a copy per store would leave
 * one script per session in Redis's script cache, which Redis 7.0 never evicts. Per client,
 * not per process: a client is one connection, whose commands Redis runs in the order they are
 * sent, which the argument of the store's `append` needs.
 */
const copies = new WeakMap<RedisClient, ScriptCopy>();

/** A Redis stream entry as the store reads it. */
interface Entry {
  seq: number;
  message: string;
  writer: string;
}

/** A JSON-RPC response: an id that is not null (an id-null error answers no request). */
const isResponse = (m: StoredMessage): boolean => {
  const id = (m as { id?: unknown }).id;
  return id !== undefined && id !== null && ('result' in m || 'error' in m);
};

/**
 * Parses the reply of `XRANGE`/`XREVRANGE`/`XREAD` entries: `[[id, ['m', message, 'w',
 * writer]], …]`. The append script writes every entry with exactly these two fields in this
 * order, and Redis keeps a stream entry's fields in order. A reply of any other shape throws
 * (a replay or follow then ends with an error, never short).
 */
function entries(reply: unknown): Entry[] {
  return (reply as [string, string[]][]).map(([id, fields]) => ({
    seq: Number(id.split('-')[1]),
    message: fields[1]!,
    writer: fields[3]!,
  }));
}

/**
 * The entries of the one stream of an `XREAD` reply: `null` when nothing came; else RESP2
 * answers an array `[[key, entries]]`, RESP3 (node-redis 6's default) a map `{ key: entries }`
 * (a `Map` with a `typeMapping`). An XREAD of one stream answers that stream or `null`.
 */
function xreadEntries(reply: unknown): unknown {
  if (reply === null) return [];
  if (Array.isArray(reply)) return (reply[0] as [string, unknown])[1];
  if (reply instanceof Map) return [...reply.values()][0];
  return Object.values(reply as object)[0];
}

/**
 * An event store on Redis Streams with the contract of `ContinuityEventStore`
 * (mcp-resumption/runtime), shared by every instance of a server:
 *
 * - one Redis Stream per MCP stream, key `<prefix>:{<epoch>}:s<k>`, entries `0-<seq>`; the SSE
 *   id is `<epoch>-s<k>-<seq>` (`CONTINUITY_ID_PATTERN`), `seq` 1, 2, 3, … without gaps or
 *   duplicates even when several instances append to one stream ({@link APPEND_SCRIPT});
 * - retention: the last `capacity` events of each stream (`MAXLEN`, exact); the floor is read
 *   from the stream itself (its first entry), never assumed;
 * - refusal (before anything is sent; the SDK answers **500**, or **400** with `precheck`) of a
 *   cursor of another session (another epoch), of an unknown stream, ahead of the head, or below
 *   the floor; an eviction during the replay ends it with an error, never with a gap;
 * - the replay starts with the in-band acknowledgment (`ReplayAck`) and reads the stream in
 *   pages (`XRANGE … COUNT pageSize`) up to its end at the time of each page;
 * - abandoned sessions expire (`ttlSeconds` after their last write);
 * - Redis unreachable: {@link EventStoreUnavailableError}, never an empty replay.
 *
 * One store object per session (the SDK interface carries no session), on every instance that
 * serves the session, with the same `epoch`.
 *
 * @category Runtime
 * @example
 * ```ts
 * import { createClient } from 'redis';
 * import { RedisContinuityEventStore } from 'mcp-resumption/redis';
 *
 * const client = await createClient({ url: process.env.REDIS_URL, disableOfflineQueue: true }).connect();
 * const eventStore = new RedisContinuityEventStore({ client, epoch, capacity: 1024 });
 * ```
 */
export class RedisContinuityEventStore implements EventStoreLike {
  /** The session's epoch. */
  readonly epoch: string;
  /** Events retained per stream. */
  readonly capacity: number;
  /** This instance's id (field `w` of each entry). */
  readonly instanceId: string;
  /** The key base of this session: `<prefix>:{<epoch>}`. */
  readonly base: string;
  /** Present only with `precheck` (see `ContinuityEventStoreOptions.precheck`). */
  readonly getStreamIdForEventId?: (eventId: string) => Promise<string | undefined>;
  protected readonly client: RedisClient;
  private readonly ttlSeconds: number;
  private readonly pageSize: number;
  private readonly timeoutMs: number;
  private readonly follow: FollowOptions | undefined;
  private readonly restart: 'new-incarnation' | 'keep';
  private readonly allowEviction: boolean;
  private readonly followers = new Map<string, () => void>();
  private closed = false;

  constructor(options: RedisContinuityEventStoreOptions) {
    this.client = options.client;
    this.capacity = options.capacity ?? 1024;
    this.ttlSeconds = options.ttlSeconds ?? 3600;
    this.pageSize = options.pageSize ?? 256;
    this.timeoutMs = options.commandTimeoutMs ?? 2000;
    this.follow = options.follow;
    this.restart = options.restart ?? 'new-incarnation';
    if (this.restart !== 'new-incarnation' && this.restart !== 'keep') {
      throw new Error(`restart must be 'new-incarnation' or 'keep', not ${String(this.restart)}`);
    }
    this.allowEviction = options.allowEviction === true;
    if (this.allowEviction && this.restart === 'keep') {
      throw new Error("allowEviction needs restart: 'new-incarnation'");
    }
    if (!(this.capacity >= 1) || !(this.pageSize >= 1)) {
      throw new Error('capacity and pageSize must be at least 1');
    }
    this.epoch = options.epoch ?? randomBytes(5).toString('hex');
    if (!/^[0-9a-z]+$/.test(this.epoch)) throw new Error('epoch must be [0-9a-z]+');
    const prefix = options.prefix ?? 'mcpr';
    if (/[{}]/.test(prefix)) throw new Error('prefix must not contain { or }');
    this.base = `${prefix}:{${this.epoch}}`;
    this.instanceId = options.instanceId ?? randomBytes(4).toString('hex');
    if (options.precheck) {
      this.getStreamIdForEventId = async (eventId) => (await this.resolve(eventId)).streamId;
    }
  }

  /** Keys of the session's indexes. */
  protected get keys(): { ids: string; names: string; heads: string; meta: string } {
    return (this.keyNames ??= {
      ids: `${this.base}:ids`,
      names: `${this.base}:names`,
      heads: `${this.base}:heads`,
      meta: `${this.base}:meta`,
    });
  }
  private fixedArgs: [string, string] | undefined;
  private keyNames: { ids: string; names: string; heads: string; meta: string } | undefined;

  /** The Redis key of stream number `k`. */
  streamKey(k: string | number): string {
    return `${this.base}:s${k}`;
  }

  /**
   * Sends one command, bounded; {@link EventStoreUnavailableError} when Redis does not answer,
   * {@link EventStoreOutOfMemoryError} when it refuses for want of memory.
   */
  protected async command<T>(args: string[], queueTimeout = true): Promise<T> {
    if (!this.client.isReady) {
      throw new EventStoreUnavailableError(`Redis is not connected (${args[0]} not sent)`);
    }
    try {
      // node-redis's own `timeout` (which drops a command from its queue when it fires; its
      // default is 5 s, on every command) costs an `AbortSignal.timeout` and two listeners per
      // command. The append goes without it (`timeout: 0`): `withinMs` bounds its wait all the
      // same, and an append whose caller gave up may be stored whether it was still queued or
      // already on the wire (the caller was told it failed; a later resume replays it).
      const reply = this.client.sendCommand<T>(args, {
        timeout: queueTimeout ? this.timeoutMs : 0,
      });
      return await withinMs(reply, this.timeoutMs);
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      if (msg.startsWith('OOM')) {
        throw new EventStoreOutOfMemoryError(
          `Redis is out of memory (maxmemory) and refused ${args[0]}; nothing was stored: ${msg}`,
        );
      }
      if (/NOSCRIPT|WRONGTYPE|ERR|syntax/i.test(msg) && !/timeout/i.test(msg)) throw e;
      throw new EventStoreUnavailableError(`Redis did not answer ${args[0]}: ${msg}`);
    }
  }

  /** The kind of store, for the setting it needs (see {@link setupRefusal}). */
  private get mode(): string {
    return this.restart === 'keep' ? 'keep' : this.allowEviction ? 'evict' : 'plain';
  }

  /**
   * Reads what the store needs of Redis (`INFO`: `run_id`, `maxmemory_policy`, `aof_enabled`;
   * with `'keep'` also `CONFIG GET appendfsync`) and refuses what it cannot promise with.
   * Resolves to the `run_id` it was read from.
   *
   * @throws RedisSetupError (see {@link setupRefusal} for the messages).
   */
  protected async readSetup(): Promise<string> {
    const info = String(await this.command<string>(['INFO']));
    const setup: RedisSetup = {
      run: infoField(info, 'run_id') ?? '',
      policy: infoField(info, 'maxmemory_policy') ?? 'unknown',
      aof: infoField(info, 'aof_enabled') === '1',
    };
    if (this.restart === 'keep') {
      try {
        const reply = await this.command<unknown>(['CONFIG', 'GET', 'appendfsync']);
        // RESP2: ['appendfsync', value]; RESP3: a map (object or Map).
        const value = Array.isArray(reply)
          ? reply[1]
          : reply instanceof Map
            ? reply.get('appendfsync')
            : (reply as Record<string, unknown>)?.appendfsync;
        if (typeof value === 'string') setup.fsync = value;
      } catch (e) {
        if (e instanceof EventStoreUnavailableError) throw e;
        setup.fsync = `unknown (CONFIG GET refused: ${e instanceof Error ? e.message : String(e)})`;
      }
    }
    const refusal = setupRefusal(setup, {
      restart: this.restart,
      allowEviction: this.allowEviction,
    });
    if (refusal !== null) throw new RedisSetupError(refusal);
    return setup.run;
  }

  /**
   * The `run_id` whose settings were checked for this client and kind of store: checked once,
   * and again with `force` (a new copy of the append script is loaded: Redis restarted, or its
   * scripts were flushed) or when `run` (a `run_id` just read) is another.
   */
  private async checkedRun(force = false, run?: string): Promise<string> {
    let byMode = verified.get(this.client);
    if (byMode === undefined) verified.set(this.client, (byMode = new Map()));
    const held = byMode.get(this.mode);
    if (held !== undefined && !force) {
      const ok = await held;
      if (run === undefined || run === '' || ok === run) return ok;
    }
    const mode = this.mode;
    const check = this.readSetup();
    byMode.set(mode, check);
    check.then(
      (run) => {
        let ok = passed.get(this.client);
        if (ok === undefined) passed.set(this.client, (ok = new Map()));
        if (byMode.get(mode) === check) ok.set(mode, run);
      },
      () => passed.get(this.client)?.delete(mode),
    );
    // A refusal is not kept: the next call checks again.
    check.catch(() => {
      if (byMode.get(this.mode) === check) byMode.delete(this.mode);
    });
    return check;
  }

  /**
   * Checks that Redis can keep this store's promise: `maxmemory-policy noeviction` (or
   * `allowEviction`), and for `restart: 'keep'` `appendonly yes` with `appendfsync always`.
   * Call it at start-up: every append and replay checks it too (and again after a Redis
   * restart), and a refused setting fails them.
   *
   * @throws RedisSetupError naming the setting and how to fix it.
   * @throws EventStoreUnavailableError when Redis does not answer.
   */
  async verify(): Promise<void> {
    await this.checkedRun(true);
  }

  /**
   * Runs the append script: `[k, seq]`. By SHA when the client has a loaded copy (see
   * {@link APPEND_SCRIPT}); else it loads a new copy (a random comment of its own) with `EVAL`,
   * while the client's other appends wait. A copy is given up at `NOSCRIPT` (Redis restarted,
   * or its script cache was flushed) before its replacement is sent, so every later `EVALSHA`
   * of it was sent before the `EVAL` that would reload it and meets `NOSCRIPT` too: each copy
   * is in one Redis process only, the one that ran its `EVAL`. The `run_id` held for a copy
   * comes only from the replies of that copy (`INFO` of that process), so it is the `run_id`
   * of the process where an `EVALSHA` of it runs.
   */
  protected async append(streamId: string, message: StoredMessage): Promise<[string, number]> {
    const k = this.keys;
    const args = [
      k.ids,
      k.names,
      k.heads,
      k.meta,
      this.base,
      streamId,
      JSON.stringify(message),
      this.instanceId,
      (this.fixedArgs ??= [String(this.capacity), String(this.ttlSeconds)])[0]!,
      this.fixedArgs[1]!,
      String(randomInt(1e11, 1e12)),
    ];
    // Refresh the TTLs (ARGV 9) on the first append to the stream and once half the TTL has
    // passed since the last refresh asked for, timed from before it was sent (APPEND_SCRIPT).
    const sentAt = performance.now();
    const last = this.refreshedAt.get(streamId);
    const refresh =
      last === undefined || sentAt - last >= this.ttlSeconds * 1000 * this.refreshAfter ? '1' : '0';
    const mode = this.mode;
    let copy = copies.get(this.client);
    if (copy === undefined) copies.set(this.client, (copy = {}));
    for (;;) {
      while (copy.loading) await copy.loading.catch(() => {});
      const loaded = copy.loaded;
      const held = mode === 'keep' ? 'keep' : mode === 'evict' ? 'evict' : (loaded?.held ?? '');
      let reply: [string | number, number, string];
      if (loaded === undefined) {
        const text = `${APPEND_SCRIPT}-- ${randomUUID()}\n`;
        // A new copy: the first append of this client, or Redis restarted (or flushed its
        // scripts). The settings are read again first, in the loading (others wait for it).
        const load = this.checkedRun(true).then((run) =>
          this.command<typeof reply>(['EVAL', text, '4', ...args, held, refresh]).then(
            (r) => [run, r] as const,
          ),
        );
        copy.loading = load;
        let run: string;
        try {
          [run, reply] = await load;
        } finally {
          copy.loading = undefined;
        }
        const sha = createHash('sha1').update(text).digest('hex');
        copy.loaded = { sha, held: String(reply[2]) };
        // Redis restarted between the check and the EVAL: check the process that stored it
        // (this id is not handed out when its settings are refused).
        if (reply[2] && String(reply[2]) !== run) await this.checkedRun(false, String(reply[2]));
      } else {
        // A copy another kind of store loaded: this kind's settings checked once per client.
        if (passed.get(this.client)?.get(mode) === undefined) await this.checkedRun(false);
        try {
          reply = await this.command(['EVALSHA', loaded.sha, '4', ...args, held, refresh], false);
        } catch (e) {
          if (!(e instanceof Error && /NOSCRIPT/.test(e.message))) throw e;
          // Not a newer copy, loaded while this reply was on its way (giving one up would be
          // safe, but would load yet another copy).
          if (copy.loaded === loaded) copy.loaded = undefined;
          continue;
        }
        // The run_id the check found ('' from a 'keep' store: the next check finds it again).
        loaded.held = String(reply[2]);
      }
      if (refresh === '1' && this.ttlSeconds > 0) this.refreshed(streamId, sentAt);
      return [String(reply[0]), Number(reply[1])];
    }
  }

  /**
   * When the TTLs were last refreshed for each stream, by this object's appends (a time from
   * before the append was sent). At most {@link REFRESH_RECORDS} streams, the least recently
   * refreshed forgotten first: a forgotten stream is refreshed at its next append, which is
   * only more often than needed.
   */
  private readonly refreshedAt = new Map<string, number>();
  /**
   * The fraction of the TTL after which an append refreshes it again: at most 0.5, as the
   * script sets 1.5 × the TTL (protected for the test's wrong subclass only).
   */
  protected readonly refreshAfter: number = 0.5;
  private refreshed(streamId: string, at: number): void {
    this.refreshedAt.delete(streamId);
    this.refreshedAt.set(streamId, at);
    if (this.refreshedAt.size > REFRESH_RECORDS) {
      this.refreshedAt.delete(this.refreshedAt.keys().next().value!);
    }
  }

  /** Stores an event: the next sequence number of its stream, atomically across instances. */
  async storeEvent(streamId: string, message: StoredMessage): Promise<string> {
    const [k, seq] = await this.append(streamId, message);
    return `${this.epoch}-s${k}-${seq}`;
  }

  /** The stream, head and floor (read from the stream's first entry) of stream number `k`. */
  async streamState(
    k: string,
  ): Promise<{ streamId: string | null; head: number; floor: number } | null> {
    const [name, head, first] = await Promise.all([
      this.command<string | null>(['HGET', this.keys.names, k]),
      this.command<string | null>(['HGET', this.keys.heads, k]),
      this.command<unknown>(['XRANGE', this.streamKey(k), '-', '+', 'COUNT', '1']),
    ]);
    // `names` and `heads` are written and deleted together; a name without a head (its keys
    // expiring between the two reads) is not retained.
    if (head === null) return null;
    const h = Number(head);
    const firstEntry = entries(first)[0];
    return { streamId: name, head: h, floor: firstEntry ? firstEntry.seq : h + 1 };
  }

  /**
   * Whether the session's log was written by the Redis process running now (always, with
   * `restart: 'keep'`): after a restart what Redis reloaded may be older than what was issued.
   */
  private async sameIncarnation(): Promise<boolean> {
    if (this.restart === 'keep') {
      await this.checkedRun(false);
      return true;
    }
    const [info, stats, run] = await Promise.all([
      this.command<string>(['INFO', 'server']),
      this.allowEviction ? this.command<string>(['INFO', 'stats']) : '',
      this.command<string | null>(['HGET', this.keys.meta, 'run']),
    ]);
    const now = infoField(String(info), 'run_id') ?? '';
    // Another process than the one whose settings were checked: check again (refuses).
    await this.checkedRun(false, now);
    if (this.allowEviction) {
      return run === `${now}:${infoField(String(stats), 'evicted_keys') ?? ''}`;
    }
    // No run stored: `null` is no run id (run ids are hex).
    return run === now;
  }

  /**
   * Refreshes the TTL of the session's keys and of stream `k` (a read is a use: a stream read
   * within `ttlSeconds` never expires, as one written within it).
   */
  private async touch(k: string): Promise<void> {
    if (this.ttlSeconds <= 0) return;
    // As the append script: 1.5 × the TTL, so that every key lives at least the TTL.
    const ttl = String(this.ttlSeconds * 1500);
    const k4 = this.keys;
    await Promise.all(
      [k4.ids, k4.names, k4.heads, k4.meta, this.streamKey(k)].map((key) =>
        this.command(['PEXPIRE', key, ttl]),
      ),
    );
  }

  /** The writer of the last entry of stream `k` (`''` when it is empty). */
  private async writerOfHead(k: string): Promise<string> {
    const reply = await this.command<unknown>([
      'XREVRANGE',
      this.streamKey(k),
      '+',
      '-',
      'COUNT',
      '1',
    ]);
    return entries(reply)[0]?.writer ?? '';
  }

  /** The stream and cursor an id names, when every event after it can be replayed. */
  private async resolve(
    eventId: string,
  ): Promise<
    | { streamId: string; k: string; cursor: number; floor: number; head: number }
    | { refused: string; streamId?: undefined }
  > {
    const m = CONTINUITY_ID_PATTERN.exec(eventId);
    if (!m?.groups) return { refused: `not an id of this store: ${JSON.stringify(eventId)}` };
    const key = m.groups.stream!;
    const cursor = Number(m.groups.seq);
    if (!key.startsWith(`${this.epoch}-s`)) {
      return { refused: `id of another store (session): ${eventId}` };
    }
    const k = key.slice(this.epoch.length + 2);
    const [state, current] = await Promise.all([this.streamState(k), this.sameIncarnation()]);
    if (!state?.streamId) return { refused: `stream ${key} is not retained` };
    if (!current) {
      const what = this.allowEviction ? 'an eviction or a Redis restart' : 'a Redis restart';
      return { refused: `stream ${key} is from before ${what} (another incarnation)` };
    }
    if (!Number.isSafeInteger(cursor) || cursor > state.head) {
      return { refused: `cursor ${cursor} is ahead of the stream head ${state.head}` };
    }
    if (cursor < state.floor - 1) {
      return { refused: `cursor ${cursor} below the retained floor ${state.floor}` };
    }
    return { streamId: state.streamId, k, cursor, floor: state.floor, head: state.head };
  }

  /**
   * Replays: the acknowledgment (no SSE id), then every event after the cursor, page by page,
   * up to the stream's end; with `follow`, then forwards other instances' later events.
   *
   * @throws UnreplayableCursorError when the cursor is not (or no longer) replayable.
   * @throws EventStoreUnavailableError when Redis does not answer.
   */
  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: StoredMessage) => Promise<void> },
  ): Promise<string> {
    const r = await this.resolve(lastEventId);
    if ('refused' in r) throw new UnreplayableCursorError(r.refused);
    const { k, cursor } = r;
    const label = `${this.epoch}-s${k}`;
    const ack: ReplayAck = {
      jsonrpc: '2.0',
      method: REPLAY_ACK_METHOD,
      params: { stream: label, after: cursor, floor: r.floor, head: r.head },
    };
    await this.touch(k);
    // A newer resume of this stream on this instance supersedes the older one's follower.
    this.followers.get(k)?.();
    await send('', ack as unknown as StoredMessage);
    let next = cursor + 1;
    let done = false;
    let writer = this.follow ? await this.writerOfHead(k) : '';
    const key = this.streamKey(k);
    const count = String(this.pageSize);
    for (;;) {
      // Entries as Redis sends them (`[id, ['m', message, 'w', writer]]`, see `entries`), read
      // in place: this loop is the replay's cost per event.
      const page = await this.command<[string, string[]][]>([
        'XRANGE',
        key,
        `0-${next}`,
        '+',
        'COUNT',
        count,
      ]);
      for (let i = 0; i < page.length; i++) {
        const [id, fields] = page[i]!;
        // Entry ids are `0-<seq>`.
        if (Number(id.slice(2)) !== next) {
          throw new UnreplayableCursorError(`event ${next} was evicted during the replay`);
        }
        const message = JSON.parse(fields[1]!) as StoredMessage;
        await send(`${label}-${next}`, message);
        if (!done && isResponse(message)) done = true;
        writer = fields[3]!;
        next += 1;
      }
      // A short page may be followed by events stored while it was sent: read until empty.
      if (page.length === 0) break;
    }
    // Redis restarted while the pages were read: what they held may end short of the head.
    if (!(await this.sameIncarnation())) {
      throw new UnreplayableCursorError(`Redis restarted during the replay of ${label}`);
    }
    if (this.follow && !done && !this.closed) this.startFollower(k, label, next - 1, writer, send);
    else this.follow?.onStop?.();
    return r.streamId;
  }

  /**
   * Follows stream `k` from `after` on a connection of its own (`XREAD BLOCK`), forwarding the
   * entries other instances write; stops at the stream's response, at `maxMs`, when the writer
   * is gone, on a newer resume of the stream, or on {@link close}. `after` is the last seq the
   * replay sent (not the head resolved before it: an event appended during the replay was sent
   * by the replay and must not be forwarded again).
   */
  protected startFollower(
    k: string,
    label: string,
    after: number,
    lastWriter: string,
    send: (eventId: string, message: StoredMessage) => Promise<void>,
  ): void {
    const follow = this.follow!;
    const blockMs = follow.blockMs ?? 1000;
    const deadline = Date.now() + (follow.maxMs ?? 300_000);
    let stopped = false;
    const conn = this.client.duplicate();
    const stop = () => {
      if (stopped) return;
      stopped = true;
      // A follower is registered until it stops (a newer one of `k` stops it before taking
      // its place), so the entry of `k` is this one.
      this.followers.delete(k);
      conn.destroy();
      follow.onStop?.();
    };
    // Two resumes of `k` replayed at once: the later follower supersedes the earlier.
    this.followers.get(k)?.();
    this.followers.set(k, stop);
    conn.on('error', () => {});
    void (async () => {
      let last = after;
      let writer = lastWriter;
      let ended = false;
      let touched = Date.now();
      try {
        await conn.connect();
        while (!stopped && !ended && Date.now() < deadline) {
          const bound = blockMs + this.timeoutMs;
          const reply = await withinMs(
            conn.sendCommand<unknown>(
              [
                'XREAD',
                'COUNT',
                '64',
                'BLOCK',
                String(blockMs),
                'STREAMS',
                this.streamKey(k),
                `0-${last}`,
              ],
              { timeout: bound },
            ),
            bound,
          );
          const got = entries(xreadEntries(reply));
          if (stopped) break;
          // A follower reads the stream: it keeps the keys alive while nobody writes.
          if (Date.now() - touched > (this.ttlSeconds * 1000) / 4) {
            touched = Date.now();
            await this.touch(k);
          }
          if (got.length === 0) {
            if (writer && follow.writerAlive && !(await follow.writerAlive(writer))) {
              const lost: WriterLost = {
                jsonrpc: '2.0',
                method: WRITER_LOST_METHOD,
                params: { stream: label, head: last, writer },
              };
              await send('', lost as unknown as StoredMessage);
              break;
            }
            continue;
          }
          for (const e of got) {
            // Evicted before the follower read it: stop (finally), never forward past a gap.
            if (e.seq !== last + 1) return;
            last = e.seq;
            writer = e.writer;
            const message = JSON.parse(e.message) as StoredMessage;
            // This instance's own events reach the stream through its transport.
            if (follow.forwardOwn || e.writer !== this.instanceId) {
              await send(`${label}-${e.seq}`, message);
            }
            if (isResponse(message)) ended = true;
          }
        }
      } catch {
        // Redis went away or the stream broke: the client's next resume is refused or replayed.
      } finally {
        stop();
      }
    })();
  }

  /** Streams being followed right now (for tests and metrics). */
  get following(): number {
    return this.followers.size;
  }

  /** Stops every follower (call it when the session's transport closes). */
  close(): void {
    this.closed = true;
    for (const stop of [...this.followers.values()]) stop();
  }
}
