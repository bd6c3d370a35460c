/**
 * A resumed stream served from Redis, outside the SDK transport: what lets an instance that
 * does not hold a request serve its stream's resume (docs/conformance.md, finding 18).
 */
import type { StoredMessage } from '../runtime/continuity-store.js';
import { UnreplayableCursorError } from '../runtime/continuity-store.js';
import {
  EventStoreUnavailableError,
  RedisContinuityEventStore,
  RedisSetupError,
  type RedisContinuityEventStoreOptions,
} from './store.js';

/** Options of {@link resumeResponse}. */
export interface ResumeResponseOptions extends RedisContinuityEventStoreOptions {
  /** SSE keepalive comment interval (ms). Default 15000. */
  keepAliveMs?: number;
  /** The session id, echoed in `mcp-session-id`. */
  sessionId?: string;
}

const json = (status: number, code: number, message: string): Response =>
  new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json' },
  });

/**
 * Answers a `GET` with `Last-Event-ID` from the shared store, on any instance: the
 * acknowledgment, the replay (paged), then every later event of the stream whoever writes it
 * (`XREAD BLOCK`, on a connection of its own), until the stream's JSON-RPC response, a
 * `writer-lost` notice, `follow.maxMs`, or the client leaving; then the stream ends.
 * Refusals are answered before any stream opens: **500** for a cursor it cannot replay (as the
 * SDK transports answer), **503** (`Retry-After: 1`) when Redis does not answer.
 *
 * @param options The session's store options (same `epoch` and `prefix` as its writers).
 * @param lastEventId The client's cursor.
 * @category Runtime
 */
export async function resumeResponse(
  options: ResumeResponseOptions,
  lastEventId: string,
): Promise<Response> {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  const finish = () => {
    if (closed) return;
    closed = true;
    clearInterval(timer);
    try {
      controller.close();
    } catch {
      // already closed
    }
  };
  const store = new RedisContinuityEventStore({
    ...options,
    follow: { ...options.follow, forwardOwn: true, onStop: finish },
  });
  const readable = new ReadableStream<Uint8Array>({
    start: (c) => {
      controller = c;
    },
    cancel: () => {
      closed = true;
      clearInterval(timer);
      store.close();
    },
  });
  const send = async (id: string, message: StoredMessage) => {
    if (closed) throw new Error('the resumed stream is closed');
    const head = `event: message\n${id ? `id: ${id}\n` : ''}`;
    controller.enqueue(encoder.encode(`${head}data: ${JSON.stringify(message)}\n\n`));
  };
  try {
    await store.replayEventsAfter(lastEventId, { send });
  } catch (e) {
    store.close();
    if (e instanceof EventStoreUnavailableError) {
      const r = json(503, -32000, `Event store unavailable: ${e.message}`);
      r.headers.set('retry-after', '1');
      return r;
    }
    if (e instanceof UnreplayableCursorError) return json(500, -32000, 'Error replaying events');
    if (e instanceof RedisSetupError) return json(500, -32000, `Event store refused: ${e.message}`);
    throw e;
  }
  if (!closed) {
    timer = setInterval(() => {
      try {
        controller.enqueue(encoder.encode(': keepalive\n\n'));
      } catch {
        clearInterval(timer);
      }
    }, options.keepAliveMs ?? 15_000);
  }
  const headers: Record<string, string> = {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache, no-transform',
  };
  if (options.sessionId) headers['mcp-session-id'] = options.sessionId;
  return new Response(readable, { headers });
}
