/**
 * What lets any instance serve any session: a session registry and instance liveness kept in
 * Redis, and the adoption of a session by an instance that did not create it.
 */
import { randomBytes } from 'node:crypto';
import { EventStoreUnavailableError, withinMs, type RedisClient } from './store.js';

/** What the registry keeps of a session: enough for another instance to adopt it. */
export interface SessionRecord {
  /** The session's store epoch (`RedisContinuityEventStoreOptions.epoch`). */
  epoch: string;
  /** The client's `initialize` request (JSON-RPC), replayed verbatim on adoption. */
  initialize: Record<string, unknown>;
  /** The instance that created the session. */
  createdBy: string;
}

/**
 * Bounded Redis call (from send to reply: node-redis's `timeout` alone ends at the write);
 * {@link EventStoreUnavailableError} when Redis does not answer.
 */
async function call<T>(client: RedisClient, args: string[], timeoutMs: number): Promise<T> {
  if (!client.isReady) throw new EventStoreUnavailableError(`Redis is not connected`);
  try {
    return await withinMs(client.sendCommand<T>(args, { timeout: timeoutMs }), timeoutMs);
  } catch (e) {
    throw new EventStoreUnavailableError(
      `Redis did not answer ${args[0]}: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
}

/**
 * Sessions in Redis (`<prefix>:session:<id>`, JSON, expiring `ttlSeconds` after the last
 * touch), so that an instance that receives a request for a session it does not hold can tell
 * an existing session (adopt it) from an unknown one (404).
 *
 * @category Runtime
 */
export class SessionRegistry {
  /**
   * @param client A connected node-redis client.
   * @param prefix Key prefix (default `mcpr`).
   * @param ttlSeconds Lifetime of an untouched session (default 3600).
   * @param timeoutMs Bound on each command (default 2000).
   */
  constructor(
    private readonly client: RedisClient,
    private readonly prefix = 'mcpr',
    private readonly ttlSeconds = 3600,
    private readonly timeoutMs = 2000,
  ) {}

  private key(sessionId: string): string {
    return `${this.prefix}:session:${sessionId}`;
  }

  /** A fresh session epoch (`[0-9a-z]+`). */
  static newEpoch(): string {
    return randomBytes(5).toString('hex');
  }

  /** Records a session. */
  async register(sessionId: string, record: SessionRecord): Promise<void> {
    const args = ['SET', this.key(sessionId), JSON.stringify(record)];
    await call(this.client, [...args, 'EX', String(this.ttlSeconds)], this.timeoutMs);
  }

  /** The session's record, `null` when it is unknown (or expired). */
  async lookup(sessionId: string): Promise<SessionRecord | null> {
    const raw = await call<string | null>(
      this.client,
      ['GET', this.key(sessionId)],
      this.timeoutMs,
    );
    return raw === null ? null : (JSON.parse(raw) as SessionRecord);
  }

  /** Extends the session's lifetime. */
  async touch(sessionId: string): Promise<void> {
    await call(
      this.client,
      ['EXPIRE', this.key(sessionId), String(this.ttlSeconds)],
      this.timeoutMs,
    );
  }

  /** Forgets the session (DELETE of the session). */
  async remove(sessionId: string): Promise<void> {
    await call(this.client, ['DEL', this.key(sessionId)], this.timeoutMs);
  }
}

/**
 * An instance's liveness key (`<prefix>:instance:<id>`, refreshed every `ttlMs / 3`): a
 * following replay (`FollowOptions.writerAlive`) asks it whether the instance that was writing
 * a stream still runs. A crashed instance's key expires after `ttlMs`.
 *
 * @category Runtime
 */
export class InstanceHeartbeat {
  private timer: NodeJS.Timeout | undefined;

  /**
   * @param client A connected node-redis client.
   * @param instanceId This instance's id.
   * @param ttlMs How long after the last beat the instance counts as gone (default 3000).
   * @param prefix Key prefix (default `mcpr`).
   */
  constructor(
    private readonly client: RedisClient,
    readonly instanceId: string,
    private readonly ttlMs = 3000,
    private readonly prefix = 'mcpr',
  ) {}

  private key(id: string): string {
    return `${this.prefix}:instance:${id}`;
  }

  /** Beats now and every `ttlMs / 3` until {@link stop}. */
  async start(): Promise<void> {
    const beat = () =>
      call(this.client, ['SET', this.key(this.instanceId), '1', 'PX', String(this.ttlMs)], 2000);
    await beat();
    this.timer = setInterval(() => void beat().catch(() => {}), Math.max(10, this.ttlMs / 3));
    this.timer.unref();
  }

  /** Stops beating; the key expires `ttlMs` later (a crash), or at once with `now`. */
  async stop(now = false): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    if (now) await call(this.client, ['DEL', this.key(this.instanceId)], 2000).catch(() => {});
  }

  /** Whether instance `id` has beaten within its TTL. */
  async alive(id: string): Promise<boolean> {
    return (await call<number>(this.client, ['EXISTS', this.key(id)], 2000)) === 1;
  }
}

/** The part of the 2.x `WebStandardStreamableHTTPServerTransport` adoption uses (public API). */
export interface WebStandardTransportLike {
  /** Handles one HTTP request (the transport's public entry). */
  handleRequest(request: Request): Promise<Response>;
}

/**
 * Adopts an existing session on an instance that did not create it: feeds a transport created
 * with `sessionIdGenerator: () => sessionId` the session's original `initialize` (then
 * `notifications/initialized`), discarding the answers, so that the transport (and the server
 * connected to it) is in the state the creating instance's was after the handshake. Only the
 * public `handleRequest(Request)` of the 2.x web-standard transport is used. Store the answers'
 * events nowhere: mute the event store while this runs (the `initialize` answer would otherwise
 * open a stream of its own).
 *
 * @param transport A fresh transport, already connected to its server.
 * @param record The session's record in the {@link SessionRegistry}.
 * @param protocolVersion The `MCP-Protocol-Version` the session negotiated, if known.
 * @throws Error when the transport does not accept the replayed handshake.
 * @category Runtime
 */
export async function adoptSession(
  transport: WebStandardTransportLike,
  record: SessionRecord,
  protocolVersion?: string,
): Promise<void> {
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  const init = await transport.handleRequest(
    new Request('http://adopt/mcp', {
      method: 'POST',
      headers,
      body: JSON.stringify(record.initialize),
    }),
  );
  const body = await init.text();
  if (init.status !== 200) {
    throw new Error(`adoption: the replayed initialize answered ${init.status}: ${body}`);
  }
  const sid = init.headers.get('mcp-session-id');
  const note = await transport.handleRequest(
    new Request('http://adopt/mcp', {
      method: 'POST',
      headers: {
        ...headers,
        ...(sid ? { 'mcp-session-id': sid } : {}),
        ...(protocolVersion ? { 'mcp-protocol-version': protocolVersion } : {}),
      },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    }),
  );
  await note.text();
}
