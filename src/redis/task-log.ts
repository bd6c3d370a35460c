/**
 * `RedisTaskEventLog`: the `TaskEventLog` of mcp-resumption/runtime (SEP-2694 task event
 * streams: `seq` from 0, +1 each, `events_gone` with `earliestSeq`, live followers) kept in
 * Redis, so that a task's stream can be resumed on any instance of a server. Its methods are
 * `TaskEventLog`'s, each answering through a promise (see {@link AsyncTaskEventLog}): Redis is
 * across a network, `TaskEventLog` answers synchronously.
 *
 * Keys, per task (hash tag `{taskId}`: one cluster slot per task): `<prefix>:{<taskId>}:meta`
 * (`next` seq, `done`, `run`: the `run_id` of the Redis process that created the task) and
 * `<prefix>:{<taskId>}:ev`, a Redis Stream whose entry `0-<seq + 1>` holds event `seq` (fields
 * `t` type, `p` payload JSON); `complete` adds one last entry with the field `end`, which wakes
 * live readers and ends them.
 *
 * Never reissued across a Redis restart (the incarnation): a task's `run` is compared with the
 * server's `run_id` by every append and every opening; when it differs, Redis restarted since
 * the task was created and what it reloaded may be older than what was issued, so appending is
 * refused ({@link TaskLostError}) and so is a stream (`-32602`, "was lost"). A task whose keys
 * are gone (Redis lost everything) is an unknown task. `restart: 'keep'` skips the check and is
 * refused unless Redis runs with `appendonly yes` and `appendfsync always` (as for
 * `RedisContinuityEventStore`); an eviction policy is refused always (read again every
 * `settingsCheckMs`).
 */
import { randomBytes } from 'node:crypto';
import {
  eventsGoneError,
  EventsGoneError,
  INVALID_PARAMS,
  type JsonRpcErrorObject,
  type TaskEvent,
  type TaskEventLog,
  type TaskStreamOpening,
} from '../runtime/task-event-log.js';
import {
  EventStoreUnavailableError,
  RedisSetupError,
  setupRefusal,
  withinMs,
  type RedisClient,
} from './store.js';

/**
 * `TaskEventLog`'s methods (the interface of the in-process log, unchanged), each answering
 * through a promise. `TaskEventLog` itself satisfies it (awaiting a plain value gives it).
 */
export type AsyncTaskEventLog = {
  [K in 'createTask' | 'append' | 'trim' | 'complete' | 'describe' | 'openStream']: (
    ...args: Parameters<TaskEventLog[K]>
  ) => Promise<Awaited<ReturnType<TaskEventLog[K]>>> | ReturnType<TaskEventLog[K]>;
};

/** Options of {@link RedisTaskEventLog}. */
export interface RedisTaskEventLogOptions {
  /** A connected node-redis client, shared (the log never closes it). */
  client: RedisClient;
  /** Key prefix. Default `mcpr`. */
  prefix?: string;
  /** Events retained per task (`XADD … MAXLEN`, exact); older ones get `events_gone`. Default 1000. */
  maxEventsPerTask?: number;
  /**
   * Seconds a task's keys live at least after their last use (an append, an opening, a live
   * reader's wait); gone within 1.5 × it once unused. Default 3600; 0 keeps them.
   */
  ttlSeconds?: number;
  /** Bound (ms) on each Redis command; beyond it `EventStoreUnavailableError`. Default 2000. */
  commandTimeoutMs?: number;
  /**
   * Bound (ms) on each `XREAD BLOCK` of a live reader. Default 1000; at most half the TTL, so
   * that a waiting reader refreshes the task's keys before they expire.
   */
  blockMs?: number;
  /**
   * How long (ms) a check of Redis's settings (`maxmemory-policy`, and for `'keep'` the AOF)
   * holds: creations, appends and openings read them again once it is older, so a policy set
   * while the log runs is refused from then on (and at once after a Redis restart). Default
   * 10000; 0: read before every one.
   */
  settingsCheckMs?: number;
  /**
   * What a Redis restart does to the tasks' logs: `'new-incarnation'` (default) refuses to
   * append to, or stream, a task created before it; `'keep'` goes on, and is refused without
   * `appendonly yes` and `appendfsync always`.
   */
  restart?: 'new-incarnation' | 'keep';
}

/**
 * A live reader's task expired while the reader was away (it paused longer than 1.5 × the TTL,
 * so nothing refreshed the task's keys): its events from `seq` on are gone, and no append can
 * come any more. The reader ends with this error rather than wait for ever.
 */
export class TaskExpiredError extends Error {
  constructor(
    readonly taskId: string,
    readonly seq: number,
  ) {
    super(
      `task ${JSON.stringify(taskId)} expired while its reader was away (unused longer than 1.5 × ttlSeconds): its events from seq ${seq} on are gone`,
    );
    this.name = 'TaskExpiredError';
  }
}

/** Appending to a task created before a Redis restart (another incarnation) was refused. */
export class TaskLostError extends Error {
  constructor(readonly taskId: string) {
    super(
      `task ${JSON.stringify(taskId)} was lost: Redis restarted since it was created, and what it ` +
        `reloaded may be older than what was issued (another incarnation)`,
    );
    this.name = 'TaskLostError';
  }
}

/**
 * Append: KEYS meta, events. ARGV: 1 `'keep'` or `'check'`, 2 type, 3 payload JSON,
 * 4 max events, 5 TTL ms (0: none). Reply: the seq, or an error `TASK unknown|done|lost`.
 */
const APPEND = `
local m = redis.call('HMGET', KEYS[1], 'next', 'done', 'run')
if not m[1] then return redis.error_reply('TASK unknown') end
if ARGV[1] ~= 'keep' then
  local run = string.match(redis.call('INFO', 'server'), 'run_id:(%x+)')
  if m[3] ~= run then return redis.error_reply('TASK lost') end
end
if m[2] == '1' then return redis.error_reply('TASK done') end
local seq = redis.call('HINCRBY', KEYS[1], 'next', 1) - 1
redis.call('XADD', KEYS[2], 'MAXLEN', ARGV[4], '0-' .. (seq + 1), 't', ARGV[2], 'p', ARGV[3])
local ttl = tonumber(ARGV[5])
if ttl > 0 and redis.call('PTTL', KEYS[2]) < ttl then
  redis.call('PEXPIRE', KEYS[1], ttl * 1.5)
  redis.call('PEXPIRE', KEYS[2], ttl * 1.5)
end
return seq
`;

/** Create: KEYS meta. ARGV: 1 TTL ms. Writes `next` 0, `done` 0, `run`. */
const CREATE = `
local run = string.match(redis.call('INFO', 'server'), 'run_id:(%x+)')
if redis.call('HSETNX', KEYS[1], 'next', 0) == 0 then return redis.error_reply('TASK exists') end
redis.call('HSET', KEYS[1], 'done', 0, 'run', run)
if tonumber(ARGV[1]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1] * 1.5) end
return run
`;

/**
 * Complete: KEYS meta, events. ARGV: 1 TTL ms. Marks the task done and adds the end entry
 * (`0-<next + 1>`, field `end`) that wakes live readers. Reply: 1, or `TASK unknown`.
 */
const COMPLETE = `
local m = redis.call('HMGET', KEYS[1], 'next', 'done')
if not m[1] then return redis.error_reply('TASK unknown') end
if m[2] == '1' then return 1 end
redis.call('HSET', KEYS[1], 'done', 1)
redis.call('XADD', KEYS[2], '0-' .. (tonumber(m[1]) + 1), 'end', '1')
local ttl = tonumber(ARGV[1])
if ttl > 0 then
  redis.call('PEXPIRE', KEYS[1], ttl * 1.5)
  redis.call('PEXPIRE', KEYS[2], ttl * 1.5)
end
return 1
`;

/** A stream entry: `[id, [field, value, …]]`. */
type Entry = [string, string[]];

const invalid = (message: string): TaskStreamOpening => ({
  ok: false,
  error: { code: INVALID_PARAMS, message },
});

/**
 * The `TaskEventLog` contract on Redis (see the module comment), shared by every instance of a
 * server. One object per process is enough (tasks are keyed by their ids).
 *
 * @category Runtime
 * @example
 * ```ts
 * import { createClient } from 'redis';
 * import { RedisTaskEventLog } from 'mcp-resumption/redis';
 *
 * const client = await createClient({ url: process.env.REDIS_URL, disableOfflineQueue: true }).connect();
 * const log = new RedisTaskEventLog({ client });
 * await log.verify();
 * const taskId = await log.createTask();
 * await log.append(taskId, 'com.example.step', { n: 1 });
 * ```
 */
export class RedisTaskEventLog implements AsyncTaskEventLog {
  private readonly client: RedisClient;
  private readonly prefix: string;
  private readonly maxEvents: number;
  private readonly ttlMs: number;
  private readonly timeoutMs: number;
  private readonly blockMs: number;
  private readonly restart: 'new-incarnation' | 'keep';
  private readonly settingsCheckMs: number;
  /** The `run_id` whose settings were checked (undefined: not yet, or refused). */
  private checked: Promise<string> | undefined;
  /** When that check started (`performance.now()`): it holds `settingsCheckMs`. */
  private checkedAt = 0;
  /** The live readers' waits, on one connection of their own. */
  private readonly waits: LiveWaits;

  constructor(options: RedisTaskEventLogOptions) {
    this.client = options.client;
    this.prefix = options.prefix ?? 'mcpr';
    if (/[{}]/.test(this.prefix)) throw new Error('prefix must not contain { or }');
    this.maxEvents = options.maxEventsPerTask ?? 1000;
    if (!Number.isSafeInteger(this.maxEvents) || this.maxEvents < 1) {
      throw new RangeError(
        `RedisTaskEventLog: maxEventsPerTask must be an integer >= 1, got ${this.maxEvents}`,
      );
    }
    this.ttlMs = (options.ttlSeconds ?? 3600) * 1000;
    this.timeoutMs = options.commandTimeoutMs ?? 2000;
    this.blockMs = options.blockMs ?? 1000;
    this.settingsCheckMs = options.settingsCheckMs ?? 10_000;
    this.waits = new LiveWaits(this.client, this.timeoutMs);
    this.restart = options.restart ?? 'new-incarnation';
    if (this.restart !== 'new-incarnation' && this.restart !== 'keep') {
      throw new Error(`restart must be 'new-incarnation' or 'keep', not ${String(this.restart)}`);
    }
  }

  /** Connections held for live readers: one while any reader waits, else none. */
  get liveConnections(): number {
    return this.waits.connections;
  }

  private meta(taskId: string): string {
    return `${this.prefix}:{${taskId}}:meta`;
  }

  private events(taskId: string): string {
    return `${this.prefix}:{${taskId}}:ev`;
  }

  /** One command, bounded; `EventStoreUnavailableError` when Redis does not answer. */
  private async command<T>(args: string[], client: RedisClient = this.client): Promise<T> {
    if (!client.isReady) {
      throw new EventStoreUnavailableError(`Redis is not connected (${args[0]} not sent)`);
    }
    try {
      return await withinMs(
        client.sendCommand<T>(args, { timeout: this.timeoutMs }),
        this.timeoutMs,
      );
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      if (/^TASK |WRONGTYPE|ERR|NOSCRIPT|OOM/.test(msg)) throw e;
      throw new EventStoreUnavailableError(`Redis did not answer ${args[0]}: ${msg}`);
    }
  }

  /**
   * Checks Redis's settings (as `RedisContinuityEventStore.verify`): `noeviction`, and for
   * `'keep'` `appendonly yes` with `appendfsync always`. Checked by every creation too, and
   * again when a task is met from another `run_id`.
   *
   * @throws RedisSetupError naming the setting and how to fix it.
   */
  async verify(): Promise<void> {
    this.checked = undefined;
    await this.setup();
  }

  /** Whether the settings are checked (a test's mutant turns it off). */
  protected setupCheck(): boolean {
    return true;
  }

  private setup(): Promise<string> {
    if (!this.setupCheck()) return Promise.resolve('');
    // A check holds settingsCheckMs: a policy set later is read (and refused) after it.
    if (this.checked !== undefined && performance.now() - this.checkedAt >= this.settingsCheckMs) {
      this.checked = undefined;
    }
    if (this.checked === undefined) this.checkedAt = performance.now();
    const check = (this.checked ??= (async () => {
      const info = String(await this.command<string>(['INFO']));
      const field = (f: string) => new RegExp(`^${f}:(.*?)\\r?$`, 'm').exec(info)?.[1];
      let fsync: string | undefined;
      if (this.restart === 'keep') {
        const reply = await this.command<unknown>(['CONFIG', 'GET', 'appendfsync']).catch(
          (e: unknown) => {
            if (e instanceof EventStoreUnavailableError) throw e;
            return [
              'appendfsync',
              `unknown (CONFIG GET refused: ${e instanceof Error ? e.message : String(e)})`,
            ];
          },
        );
        const v = Array.isArray(reply)
          ? reply[1]
          : reply instanceof Map
            ? reply.get('appendfsync')
            : (reply as Record<string, unknown>)?.appendfsync;
        if (typeof v === 'string') fsync = v;
      }
      const refusal = setupRefusal(
        {
          run: field('run_id') ?? '',
          policy: field('maxmemory_policy') ?? 'unknown',
          aof: field('aof_enabled') === '1',
          ...(fsync === undefined ? {} : { fsync }),
        },
        { restart: this.restart, allowEviction: false },
      );
      if (refusal !== null) throw new RedisSetupError(refusal);
      return field('run_id') ?? '';
    })());
    check.catch(() => {
      if (this.checked === check) this.checked = undefined;
    });
    return check;
  }

  /** Runs a script by `EVAL` (Redis caches it by SHA; its text is a few hundred bytes). */
  private script<T>(text: string, keys: string[], args: string[]): Promise<T> {
    return this.command<T>(['EVAL', text, String(keys.length), ...keys, ...args]);
  }

  /** A new task: a random id (64 bits), never issued twice. */
  async createTask(): Promise<string> {
    const checkedRun = await this.setup();
    const id = `task-${randomBytes(8).toString('hex')}`;
    const run = await this.script<string>(CREATE, [this.meta(id)], [String(this.ttlMs)]);
    // Redis restarted since its settings were read: read them again (refuses what it must).
    if (run !== checkedRun) await this.verify();
    return id;
  }

  /**
   * Appends an event: the next `seq` of the task, atomically across instances.
   *
   * @throws RangeError for an unknown or finished task; {@link TaskLostError} for a task from
   *   before a Redis restart.
   */
  async append(
    taskId: string,
    type: string,
    payload: Record<string, unknown> = {},
  ): Promise<TaskEvent> {
    await this.setup();
    let seq: number;
    try {
      seq = Number(
        await this.script<number>(
          APPEND,
          [this.meta(taskId), this.events(taskId)],
          [
            this.restart === 'keep' ? 'keep' : 'check',
            type,
            JSON.stringify(payload),
            String(this.maxEvents),
            String(this.ttlMs),
          ],
        ),
      );
    } catch (e) {
      throw this.taskError(e, taskId);
    }
    return this.event(taskId, seq, type, payload);
  }

  private taskError(e: unknown, taskId: string): unknown {
    const msg = e instanceof Error ? e.message : '';
    if (msg.includes('TASK unknown')) {
      return new RangeError(`RedisTaskEventLog: unknown task ${JSON.stringify(taskId)}`);
    }
    if (msg.includes('TASK done')) {
      return new RangeError(`RedisTaskEventLog: task ${JSON.stringify(taskId)} has finished`);
    }
    if (msg.includes('TASK lost')) return new TaskLostError(taskId);
    return e;
  }

  private event(taskId: string, seq: number, type: string, payload: Record<string, unknown>) {
    return {
      seq,
      taskId,
      type,
      payload,
      _meta: { 'io.modelcontextprotocol/related-task': { taskId } },
    } satisfies TaskEvent;
  }

  /**
   * Drops the task's events with `seq < before`; the earliest retained seq afterwards (the
   * next seq when none is left).
   */
  async trim(taskId: string, before: number): Promise<number> {
    const d = await this.describe(taskId);
    if (!d) throw new RangeError(`RedisTaskEventLog: unknown task ${JSON.stringify(taskId)}`);
    const upto = Math.min(Math.max(0, Math.floor(before)), d.next);
    await this.command(['XTRIM', this.events(taskId), 'MINID', `0-${upto + 1}`]);
    return (await this.describe(taskId))?.earliest ?? d.next;
  }

  /** The task reached a terminal state: live readers end once they have sent everything. */
  async complete(taskId: string): Promise<void> {
    try {
      await this.script(COMPLETE, [this.meta(taskId), this.events(taskId)], [String(this.ttlMs)]);
    } catch (e) {
      throw this.taskError(e, taskId);
    }
  }

  /** What Redis holds of a task: `earliest` retained seq (`null`: none), `next`, `done`. */
  async describe(
    taskId: string,
  ): Promise<{ earliest: number | null; next: number; done: boolean } | undefined> {
    const [meta, first] = await Promise.all([
      this.command<(string | null)[]>(['HMGET', this.meta(taskId), 'next', 'done', 'run']),
      this.command<Entry[]>(['XRANGE', this.events(taskId), '-', '+', 'COUNT', '1']),
    ]);
    if (meta[0] === null || meta[0] === undefined) return undefined;
    const entry = first[0];
    const earliest = entry && entry[1][0] !== 'end' ? Number(entry[0].slice(2)) - 1 : null;
    return { earliest, next: Number(meta[0]), done: meta[1] === '1' };
  }

  /**
   * Opens a `tasks/stream` (as `TaskEventLog.openStream`): `-32602` for bad params, an
   * unknown task, an invalid `after`, or a task lost in a Redis restart; `events_gone` when
   * `after + 1` is no longer retained; else the events after `after` (without it, from the
   * earliest retained), then live ones until the task completes or `signal` aborts.
   */
  async openStream(params: unknown, signal?: AbortSignal): Promise<TaskStreamOpening> {
    if (typeof params !== 'object' || params === null || Array.isArray(params)) {
      return invalid('tasks/stream params must be an object');
    }
    const { taskId, after } = params as { taskId?: unknown; after?: unknown };
    if (typeof taskId !== 'string' || taskId === '') {
      return invalid('tasks/stream taskId must be a non-empty string');
    }
    const checkedRun = await this.setup();
    const [meta, first, info] = await Promise.all([
      this.command<(string | null)[]>(['HMGET', this.meta(taskId), 'next', 'done', 'run']),
      this.command<Entry[]>(['XRANGE', this.events(taskId), '-', '+', 'COUNT', '1']),
      this.restart === 'keep' ? '' : this.command<string>(['INFO', 'server']),
    ]);
    if (meta[0] === null || meta[0] === undefined) {
      return invalid(`unknown task ${JSON.stringify(taskId)}`);
    }
    if (this.restart !== 'keep') {
      const run = /run_id:(\w+)/.exec(String(info))?.[1];
      if (run !== checkedRun) await this.verify();
      if (meta[2] !== run) return invalid(new TaskLostError(taskId).message);
    }
    const next = Number(meta[0]);
    const entry = first[0];
    const earliest = entry && entry[1][0] !== 'end' ? Number(entry[0].slice(2)) - 1 : next;
    if (this.ttlMs > 0) {
      const ttl = String(this.ttlMs * 1.5);
      await Promise.all([
        this.command(['PEXPIRE', this.meta(taskId), ttl]),
        this.command(['PEXPIRE', this.events(taskId), ttl]),
      ]);
    }
    if (after !== undefined && after !== null) {
      if (typeof after !== 'number' || !Number.isSafeInteger(after) || after < 0) {
        return invalid(`tasks/stream after must be a non-negative integer, got ${String(after)}`);
      }
      if (after >= next) {
        return invalid(
          `tasks/stream after ${after} is beyond the last event of the task (${next - 1})`,
        );
      }
      if (after + 1 < earliest) return { ok: false, error: eventsGoneError(taskId, earliest) };
      return { ok: true, events: this.follow(taskId, after + 1, signal) };
    }
    return { ok: true, events: this.follow(taskId, earliest, signal) };
  }

  /**
   * Every event of the task from `from` on: the retained ones in pages (`XRANGE`), then live
   * ones (`XREAD BLOCK` on the connection every waiting reader of this log shares: LiveWaits), until
   * the end entry or `signal`. A gap (events trimmed before they were read) throws
   * `EventsGoneError`, never a skip.
   */
  private async *follow(
    taskId: string,
    from: number,
    signal?: AbortSignal,
  ): AsyncGenerator<TaskEvent, void, undefined> {
    const key = this.events(taskId);
    let next = from;
    // The task's keys were refreshed by the opening: a reader refreshes them again once half
    // the TTL has passed (waiting, or reading a long backlog slowly), and finds out that they
    // expired (it paused past 1.5 × the TTL) by the refresh itself: an error, never a wait.
    let touched = performance.now();
    /** The task's keys expired: the events already read are passed on, then the error. */
    let expired = false;
    const touch = async () => {
      if (expired || this.ttlMs <= 0 || performance.now() - touched < this.ttlMs / 2) return;
      const ttl = String(this.ttlMs * 1.5);
      const [kept] = await Promise.all([
        this.command<number>(['PEXPIRE', this.meta(taskId), ttl]),
        this.command<number>(['PEXPIRE', key, ttl]),
      ]);
      touched = performance.now();
      expired = Number(kept) === 0;
    };
    // A wait never outlasts half the TTL, so a waiting reader refreshes in time.
    const blockMs =
      this.ttlMs > 0
        ? Math.max(1, Math.min(this.blockMs, Math.floor(this.ttlMs / 2)))
        : this.blockMs;
    for (;;) {
      await touch();
      if (expired) throw new TaskExpiredError(taskId, next);
      let page = await this.command<Entry[]>(['XRANGE', key, `0-${next + 1}`, '+', 'COUNT', '256']);
      if (page.length === 0) {
        if (signal?.aborted) return;
        page = await this.waits.wait(taskId, key, next, blockMs, signal);
        if (signal?.aborted) return;
        // Nothing for blockMs: a waiting reader is a use of the task (its TTL, at the top).
        if (page.length === 0) continue;
      }
      for (const [id, fields] of page) {
        const seq = Number(id.slice(2)) - 1;
        if (fields[0] === 'end') return;
        if (seq !== next) {
          throw new EventsGoneError(taskId, await this.earliest(taskId, seq));
        }
        // A reader slow through a page is a use of the task too (and learns if it expired:
        // the page, already read, is passed on first).
        await touch();
        yield this.event(
          taskId,
          seq,
          fields[1]!,
          JSON.parse(fields[3]!) as Record<string, unknown>,
        );
        next += 1;
      }
    }
  }

  /** The earliest retained seq now (`fallback` when it cannot be read). */
  private async earliest(taskId: string, fallback: number): Promise<number> {
    const d = await this.describe(taskId).catch(() => undefined);
    return d?.earliest ?? d?.next ?? fallback;
  }
}

/** The entries per stream of an `XREAD` reply (RESP2 array, RESP3 map, or `null`). */
function xreadEntries(reply: unknown): Map<string, Entry[]> {
  if (reply === null || reply === undefined) return new Map();
  if (Array.isArray(reply)) {
    return new Map((reply as [string, Entry[]][]).map(([k, e]) => [String(k), e]));
  }
  if (reply instanceof Map) return new Map([...reply].map(([k, e]) => [String(k), e as Entry[]]));
  return new Map(Object.entries(reply as Record<string, Entry[]>));
}

/** The seq after which an entry id `0-<n>` comes (`n`), as a number. */
const entryNumber = (id: string) => Number(id.slice(2));

/** A live reader waiting for its stream to grow past `from` (entry number). */
interface Waiter {
  taskId: string;
  key: string;
  from: number;
  /** When its wait is over (`performance.now()`): answered `[]` then, to refresh and look again. */
  until: number;
  resolve(entries: Entry[]): void;
  reject(e: Error): void;
}

/**
 * The waits of every live reader of one log, on one connection: one `XREAD BLOCK` names every
 * stream a reader waits on, and each reader gets its stream's entries (or none, after the
 * block, to refresh its task and look again). A reader that starts to wait while an `XREAD` is
 * blocked without its stream unblocks it (`CLIENT UNBLOCK`), so it waits no longer than it
 * would alone. The connection is opened by the first wait and closed when no reader waits:
 * 2,000 waiting readers hold one connection, not one each.
 */
class LiveWaits {
  private readonly waiters = new Set<Waiter>();
  private conn: RedisClient | undefined;
  /** The connection's `CLIENT ID`, for `CLIENT UNBLOCK`. */
  private connId: number | undefined;
  /** The readers the `XREAD` in flight names (`undefined`: none in flight). */
  private inFlight: Set<Waiter> | undefined;
  private unblockSent = false;
  private running = false;

  constructor(
    private readonly client: RedisClient,
    private readonly timeoutMs: number,
  ) {}

  /** Connections this log holds for its live readers (0 or 1). */
  get connections(): number {
    return this.conn === undefined ? 0 : 1;
  }

  /** Entries of `key` after entry number `from` (waits at most `blockMs`; `[]`: none yet). */
  wait(
    taskId: string,
    key: string,
    from: number,
    blockMs: number,
    signal?: AbortSignal,
  ): Promise<Entry[]> {
    return new Promise<Entry[]>((resolve, reject) => {
      const w: Waiter = { taskId, key, from, until: performance.now() + blockMs, resolve, reject };
      const onAbort = () => {
        if (this.waiters.delete(w)) resolve([]);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const done =
        <T>(f: (v: T) => void) =>
        (v: T) => {
          signal?.removeEventListener('abort', onAbort);
          f(v);
        };
      w.resolve = done(resolve);
      w.reject = done(reject);
      this.waiters.add(w);
      if (!this.running) void this.run();
      else if (this.inFlight !== undefined && !this.inFlight.has(w)) this.unblock();
    });
  }

  /** Ends the `XREAD` in flight early, so that the next one names the new reader's stream. */
  private unblock(): void {
    if (this.unblockSent || this.connId === undefined || !this.client.isReady) return;
    this.unblockSent = true;
    void this.client
      .sendCommand(['CLIENT', 'UNBLOCK', String(this.connId)], { timeout: this.timeoutMs })
      .catch(() => {});
  }

  private async connection(): Promise<RedisClient> {
    if (this.conn !== undefined) return this.conn;
    const conn = this.client.duplicate();
    conn.on('error', () => {});
    try {
      // Bounded: node-redis retries a refused connection for ever (Redis gone while a reader
      // starts to wait); the readers end with the error instead.
      await withinMs(conn.connect(), this.timeoutMs);
      this.connId = Number(
        await withinMs(conn.sendCommand<number>(['CLIENT', 'ID']), this.timeoutMs),
      );
    } catch (e) {
      conn.destroy();
      throw e;
    }
    this.conn = conn;
    return conn;
  }

  private close(): void {
    this.conn?.destroy();
    this.conn = undefined;
    this.connId = undefined;
  }

  private async run(): Promise<void> {
    this.running = true;
    try {
      while (this.waiters.size > 0) {
        const batch = [...this.waiters];
        const from = new Map<string, number>();
        for (const w of batch) from.set(w.key, Math.min(from.get(w.key) ?? w.from, w.from));
        const now = performance.now();
        const block = Math.max(1, Math.ceil(Math.min(...batch.map((w) => w.until)) - now));
        const bound = block + this.timeoutMs;
        let entries: Map<string, Entry[]>;
        try {
          const conn = await this.connection();
          this.inFlight = new Set(batch);
          this.unblockSent = false;
          const reply = await withinMs(
            conn.sendCommand<unknown>(
              [
                'XREAD',
                'COUNT',
                '256',
                'BLOCK',
                String(block),
                'STREAMS',
                ...from.keys(),
                ...[...from.values()].map((n) => `0-${n}`),
              ],
              { timeout: bound },
            ),
            bound,
          );
          entries = xreadEntries(reply);
        } catch (e) {
          this.close();
          const why = e instanceof Error ? e.message : String(e);
          for (const w of batch) {
            if (!this.waiters.delete(w)) continue;
            w.reject(
              new EventStoreUnavailableError(
                `Redis did not answer XREAD of a live reader of task ${JSON.stringify(w.taskId)}: ${why}`,
              ),
            );
          }
          continue;
        } finally {
          this.inFlight = undefined;
        }
        // A reader with entries gets them; one without waits on (an XREAD ended early for a
        // newcomer, or for another reader's entries) until its own wait is over.
        const after = performance.now();
        for (const w of batch) {
          if (!this.waiters.has(w)) continue;
          const mine = (entries.get(w.key) ?? []).filter(([id]) => entryNumber(id) > w.from);
          if (mine.length === 0 && after < w.until) continue;
          this.waiters.delete(w);
          w.resolve(mine);
        }
      }
    } finally {
      this.running = false;
      this.close();
    }
  }
}

/** The JSON-RPC error of a lost task, as `openStream` answers it (for hosts and tests). */
export function taskLostError(taskId: string): JsonRpcErrorObject {
  return { code: INVALID_PARAMS, message: new TaskLostError(taskId).message };
}
