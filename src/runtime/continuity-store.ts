/**
 * `ContinuityEventStore`: an event store for the MCP SDK's Streamable HTTP server transport
 * (`eventStore` option of `StreamableHTTPServerTransport` in `@modelcontextprotocol/sdk` 1.x and
 * of `WebStandardStreamableHTTPServerTransport` in `@modelcontextprotocol/server` 2.x) that makes
 * every resumption provable or refuses it. See docs/conformance.md for why each choice meets the
 * seed's conditions of validity.
 */
import { randomBytes } from 'node:crypto';

/** A JSON-RPC message as the stores see it (they never look inside). */
export type StoredMessage = Record<string, unknown>;

/**
 * The SDK `EventStore` interface, structurally: the shape `@modelcontextprotocol/sdk` 1.x and
 * `@modelcontextprotocol/server` 2.x both accept as `eventStore`. Declared here so the library
 * does not depend on either package at run time.
 */
export interface EventStoreLike {
  /** Stores a message sent on `streamId`; resolves to its event id (the SSE `id`). */
  storeEvent(streamId: string, message: StoredMessage): Promise<string>;
  /** The stream an id belongs to; `undefined` makes the SDK answer 400. Optional. */
  getStreamIdForEventId?(eventId: string): Promise<string | undefined>;
  /** Sends every event after `lastEventId` through `send`; resolves to the stream id. */
  replayEventsAfter(
    lastEventId: string,
    handlers: { send: (eventId: string, message: StoredMessage) => Promise<void> },
  ): Promise<string>;
}

/**
 * The form of a {@link ContinuityEventStore} id: `<epoch>-s<stream>-<seq>`. `stream` names the
 * stream (and the store instance, through its epoch); `seq` counts that stream's events from 1
 * without gaps. Pass it to `mcp-resumption check --id-pattern`.
 */
export const CONTINUITY_ID_PATTERN = /^(?<stream>[0-9a-z]+-s\d+)-(?<seq>\d+)$/;

/** The JSON-RPC method of the in-band replay acknowledgment. */
export const REPLAY_ACK_METHOD = 'notifications/mcp-resumption/replay';

/**
 * The in-band replay acknowledgment: the first message of every resumed stream, sent without an
 * SSE id (so it does not move the client's cursor). It states that every event of `stream`
 * after `after` follows, and the retained floor, so that a valid resumption with nothing new
 * yet is provable.
 */
export interface ReplayAck {
  jsonrpc: '2.0';
  method: typeof REPLAY_ACK_METHOD;
  params: {
    /** The stream the cursor belongs to (the `stream` group of the ids). */
    stream: string;
    /** The cursor's sequence number: replay starts at `after + 1`. */
    after: number;
    /** The lowest sequence number still retained for the stream. */
    floor: number;
    /** The highest sequence number stored so far. */
    head: number;
  };
}

/** `true` when `message` is a {@link ReplayAck}. */
export function isReplayAck(message: unknown): message is ReplayAck {
  return (
    typeof message === 'object' &&
    message !== null &&
    (message as { method?: unknown }).method === REPLAY_ACK_METHOD
  );
}

/** Options of a {@link ContinuityEventStore}. */
export interface ContinuityEventStoreOptions {
  /**
   * Events retained per stream (the ring depth); the stated floor of a stream is
   * `head - capacity + 1`. Default 1024.
   */
  capacity?: number;
  /**
   * Streams retained with their events. Beyond it the least recently used stream (written or
   * replayed) is evicted: its events are dropped and every cursor of it is refused until it is
   * written again. Its number and head are kept (for up to {@link EVICTED_PER_STREAM} ×
   * `maxStreams` evicted streams), so that a stream written after its eviction keeps its number
   * and counts on: a live stream is never renumbered. Default 256.
   */
  maxStreams?: number;
  /** The store's epoch (part of every id); random by default. */
  epoch?: string;
  /**
   * Refuse through `getStreamIdForEventId` (SDK answer **400**) instead of through
   * `replayEventsAfter` (SDK answer **500**). Default `false`: when the store has
   * `getStreamIdForEventId`, the SDK also answers **409** to a resume that arrives while the
   * old connection of the same stream is still registered, which after a silent network cut
   * (the server has not noticed yet) refuses a perfectly replayable cursor.
   */
  precheck?: boolean;
}

/**
 * Evicted streams whose number and head a {@link ContinuityEventStore} remembers, per retained
 * stream (`maxStreams`). One forgotten beyond it that is written again is a new stream (a new
 * number, from 1); its old cursors stay refused (the guard sees another stream's ids).
 */
export const EVICTED_PER_STREAM = 16;

interface StreamLog {
  readonly key: string;
  readonly streamId: string;
  /** Sequence number of the last stored event (0: none). */
  head: number;
  /** Retained events, oldest first; `events[i]` has seq `head - events.length + 1 + i`. */
  events: StoredMessage[];
  /** Dropped with its events (least recently used beyond `maxStreams`): every cursor refused. */
  evicted: boolean;
}

/** Raised by `replayEventsAfter` when the cursor stopped being replayable (the SDK answers 500). */
export class UnreplayableCursorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnreplayableCursorError';
  }
}

/**
 * An event store whose ids encode the stream and a contiguous per-stream sequence, with bounded
 * retention and a stated floor, that refuses unreplayable or foreign cursors and acknowledges
 * every replay in band.
 *
 * - ids: `<epoch>-s<k>-<seq>` ({@link CONTINUITY_ID_PATTERN}); `seq` is 1, 2, 3, … per stream.
 * - retention: the last `capacity` events of each stream, `maxStreams` streams (least recently
 *   used evicted whole, their cursors refused; never renumbered).
 * - refusal of an id of another store (another session or process: the epoch differs), an
 *   unknown stream, a cursor ahead of the head, or one below the floor: `replayEventsAfter`
 *   throws before sending anything and the SDK transport answers **500** (`Error replaying
 *   events`), never a 200. With `precheck`, `getStreamIdForEventId` refuses first and the SDK
 *   answers **400** (`Invalid event ID format`); see {@link ContinuityEventStoreOptions.precheck}
 *   for the price.
 * - acknowledgment: a replay starts with a {@link ReplayAck} message without an SSE id.
 *
 * Use one instance per session: the SDK's `EventStore` interface carries no session, so only a
 * per-session instance can tell another session's cursor apart.
 *
 * @category Runtime
 * @example
 * ```ts
 * import { randomUUID } from 'node:crypto';
 * import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
 * import { ContinuityEventStore } from 'mcp-resumption/runtime';
 *
 * const transport = new StreamableHTTPServerTransport({
 *   sessionIdGenerator: () => randomUUID(),
 *   eventStore: new ContinuityEventStore({ capacity: 1024 }), // one store per session
 * });
 * ```
 */
export class ContinuityEventStore implements EventStoreLike {
  /** This store's epoch: a fresh one per instance (per session, per process start). */
  readonly epoch: string;
  /** Events retained per stream. */
  readonly capacity: number;
  /** Streams retained. */
  readonly maxStreams: number;
  /** Retained streams, least recently used first (Map order is the eviction order). */
  private readonly live = new Map<string, StreamLog>();
  /** Evicted streams (number and head only), oldest eviction first. */
  private readonly evicted = new Map<string, StreamLog>();
  /**
   * Every stream a cursor can name (live and evicted): bounded with them, see {@link indexed}.
   * Protected for the tests' deliberately wrong subclasses, not an API.
   * @hidden
   */
  protected readonly byKey = new Map<string, StreamLog>();
  private nextKey = 1;

  /**
   * Present only with `precheck`: the stream of a replayable cursor, `undefined` otherwise (the
   * SDK then answers 400 and opens no stream).
   */
  readonly getStreamIdForEventId?: (eventId: string) => Promise<string | undefined>;

  constructor(options: ContinuityEventStoreOptions = {}) {
    this.capacity = options.capacity ?? 1024;
    this.maxStreams = options.maxStreams ?? 256;
    if (!(this.capacity >= 1) || !(this.maxStreams >= 1)) {
      throw new Error('capacity and maxStreams must be at least 1');
    }
    this.epoch = options.epoch ?? randomBytes(5).toString('hex');
    if (!/^[0-9a-z]+$/.test(this.epoch)) throw new Error('epoch must be [0-9a-z]+');
    if (options.precheck) {
      this.getStreamIdForEventId = async (eventId) => {
        const r = this.resolve(eventId);
        return 'log' in r ? r.log.streamId : undefined;
      };
    }
  }

  /** Stores an event: the next sequence number of its stream. */
  async storeEvent(streamId: string, message: StoredMessage): Promise<string> {
    let log = this.live.get(streamId);
    if (log) this.use(log);
    else {
      // Back after an eviction: its number and head, none of its events.
      log = this.evicted.get(streamId);
      if (log) {
        this.evicted.delete(streamId);
        log.evicted = false;
      } else {
        const key = `${this.epoch}-s${this.nextKey++}`;
        log = { key, streamId, head: 0, events: [], evicted: false };
        this.byKey.set(key, log);
      }
      this.live.set(streamId, log);
      this.evictBeyondLimit();
    }
    log.head += 1;
    log.events.push(message);
    if (log.events.length > this.capacity) log.events.shift();
    return `${log.key}-${log.head}`;
  }

  /** Moves `log` to the most recently used end of the eviction order. */
  private use(log: StreamLog): void {
    this.live.delete(log.streamId);
    this.live.set(log.streamId, log);
  }

  /**
   * Streams in the index cursors are resolved by: at most `maxStreams` × (1 +
   * {@link EVICTED_PER_STREAM}), however many streams were ever written (a forgotten stream
   * leaves it). For tests and metrics.
   */
  get indexed(): number {
    return this.byKey.size;
  }

  /** Evicts the least recently used streams beyond `maxStreams`; forgets the oldest evicted. */
  protected evictBeyondLimit(): void {
    while (this.live.size > this.maxStreams) {
      const oldest = this.live.values().next().value as StreamLog;
      this.live.delete(oldest.streamId);
      oldest.events = [];
      oldest.evicted = true;
      this.evicted.set(oldest.streamId, oldest);
    }
    while (this.evicted.size > EVICTED_PER_STREAM * this.maxStreams) {
      const forgotten = this.evicted.values().next().value as StreamLog;
      this.evicted.delete(forgotten.streamId);
      this.byKey.delete(forgotten.key);
    }
  }

  /** The lowest retained sequence number of the stream (`head + 1` when nothing is retained). */
  floorOf(log: { head: number; events: unknown[] }): number {
    return log.head - log.events.length + 1;
  }

  /** The stream and cursor an id names, when every event after it can be replayed. */
  private resolve(eventId: string): { log: StreamLog; cursor: number } | { refused: string } {
    const m = CONTINUITY_ID_PATTERN.exec(eventId);
    if (!m?.groups) return { refused: `not an id of this store: ${JSON.stringify(eventId)}` };
    const key = m.groups.stream!;
    const cursor = Number(m.groups.seq);
    if (!key.startsWith(`${this.epoch}-`)) {
      return { refused: `id of another store (session or process): ${eventId}` };
    }
    const log = this.byKey.get(key);
    if (!log) return { refused: `stream ${key} is not retained` };
    if (log.evicted) {
      return { refused: `stream ${key} was evicted (least recently used of ${this.maxStreams})` };
    }
    if (!Number.isSafeInteger(cursor) || cursor > log.head) {
      return { refused: `cursor ${cursor} is ahead of the stream head ${log.head}` };
    }
    const floor = this.floorOf(log);
    if (cursor < floor - 1) {
      return { refused: `cursor ${cursor} below the retained floor ${floor}` };
    }
    return { log, cursor };
  }

  /**
   * Replays: first the {@link ReplayAck} (no SSE id), then every retained event after the
   * cursor, in sequence order, including events stored while the replay runs.
   *
   * @throws {@link UnreplayableCursorError} when the cursor is not (or no longer) replayable.
   */
  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: StoredMessage) => Promise<void> },
  ): Promise<string> {
    const r = this.resolve(lastEventId);
    if ('refused' in r) throw new UnreplayableCursorError(r.refused);
    const { log, cursor } = r;
    this.use(log);
    const ack: ReplayAck = {
      jsonrpc: '2.0',
      method: REPLAY_ACK_METHOD,
      params: { stream: log.key, after: cursor, floor: this.floorOf(log), head: log.head },
    };
    await send('', ack as unknown as StoredMessage);
    for (let seq = cursor + 1; seq <= log.head; seq++) {
      const floor = this.floorOf(log);
      if (seq < floor) {
        throw new UnreplayableCursorError(`event ${seq} was evicted during the replay`);
      }
      await send(`${log.key}-${seq}`, log.events[seq - floor]!);
    }
    return log.streamId;
  }
}
