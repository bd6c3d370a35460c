/**
 * `taskStreamHandler(log)`: a Web fetch handler (`(Request) => Promise<Response>`) that serves
 * `tasks/stream` from a task event log over HTTP, as MCP's Streamable HTTP transport carries a
 * request: the client POSTs the JSON-RPC request; an error comes back as one JSON-RPC error
 * (application/json), a stream as `text/event-stream` whose `data:` lines are the
 * `notifications/tasks/event` messages and, last, the empty result that closes it. The log is
 * the in-process {@link TaskEventLog} or one that answers through a promise
 * (`RedisTaskEventLog` of `mcp-resumption/redis`, shared by every instance): see
 * {@link TaskStreamSource}.
 */
import {
  EventsGoneError,
  INVALID_PARAMS,
  isEventsGone,
  type JsonRpcErrorObject,
  type TaskStreamOpening,
} from './task-event-log.js';

/**
 * What {@link taskStreamHandler} serves from: `openStream` of a task event log, answering at
 * once ({@link TaskEventLog}, in process) or through a promise (a log kept elsewhere, such as
 * `RedisTaskEventLog` of `mcp-resumption/redis`: a task's stream written by one instance is then
 * resumed with `after` on any other). An opening that throws or rejects (the log's store is
 * unreachable) is answered with one JSON-RPC error (`-32603`) naming the failure; so is a
 * stream whose next event cannot be read, as the stream's last message: never a silent end.
 */
export interface TaskStreamSource {
  /** As `TaskEventLog.openStream`: an error to answer with, or the events to send. */
  openStream(
    params: unknown,
    signal?: AbortSignal,
  ): TaskStreamOpening | PromiseLike<TaskStreamOpening>;
}

/** The JSON-RPC code of a log that failed (its store unreachable): internal error. */
const INTERNAL_ERROR = -32603;

const isPromiseLike = (x: unknown): x is PromiseLike<TaskStreamOpening> =>
  typeof (x as { then?: unknown } | null)?.then === 'function';

/**
 * `opening`, or a rejection after `ms` (an opening that comes later has its events closed:
 * nobody reads them). No wait of the handler on a log elsewhere is unbounded.
 */
function bounded(opening: PromiseLike<TaskStreamOpening>, ms: number): Promise<TaskStreamOpening> {
  // Beyond a timer's range (`Infinity`): not bounded.
  if (!(ms <= 2_147_483_647)) return Promise.resolve(opening);
  return new Promise((resolve, reject) => {
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      reject(new Error(`the task event log did not answer within ${ms} ms`));
    }, ms);
    opening.then(
      (o) => {
        clearTimeout(timer);
        if (!late) resolve(o);
        else if (o.ok) void o.events.return(undefined);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e as Error);
      },
    );
  });
}

/** Options of {@link taskStreamHandler}. */
export interface TaskStreamHandlerOptions {
  /**
   * The HTTP status of an `events_gone` answer: 200 (the default) or 410, which SEP-2694 lets
   * a Streamable HTTP server use; the body is the same JSON-RPC error either way.
   */
  eventsGoneStatus?: 200 | 410;
  /** Further JSON-RPC methods served on the same endpoint (a result, or a thrown error). */
  methods?: Record<string, (params: unknown) => unknown>;
  /**
   * Bound (ms) on an opening that answers through a promise (a log kept elsewhere): beyond it
   * the call is answered with one JSON-RPC error (`-32603`, "did not answer within"), and an
   * opening that comes later is closed unread. Default 10000; `Infinity` waits unbounded; a
   * synchronous log is not timed.
   */
  openTimeoutMs?: number;
}

type Id = string | number | null;

const JSON_HEADERS = { 'content-type': 'application/json' };

function reply(id: Id, body: { result: unknown } | { error: JsonRpcErrorObject }, status = 200) {
  return new Response(JSON.stringify({ jsonrpc: '2.0', id, ...body }), {
    status,
    headers: JSON_HEADERS,
  });
}

const sse = (message: unknown) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;

/**
 * A fetch handler serving `tasks/stream` (and `options.methods`) from `log`: a
 * {@link TaskEventLog}, or any {@link TaskStreamSource} (a log answering through a promise).
 * Requests other than a POST of one JSON-RPC request are refused (405, or a JSON-RPC parse
 * error).
 *
 * @category Runtime
 */
export function taskStreamHandler(
  log: TaskStreamSource,
  options: TaskStreamHandlerOptions = {},
): (request: Request) => Promise<Response> {
  const goneStatus = options.eventsGoneStatus ?? 200;
  const openTimeoutMs = options.openTimeoutMs ?? 10_000;
  return async (request) => {
    if (request.method !== 'POST') {
      return new Response('tasks/stream is served on POST', { status: 405 });
    }
    let message: { id?: unknown; method?: unknown; params?: unknown };
    try {
      message = JSON.parse(await request.text()) as typeof message;
    } catch {
      return reply(null, { error: { code: -32700, message: 'Parse error' } });
    }
    if (typeof message !== 'object' || message === null || typeof message.method !== 'string') {
      return reply(null, { error: { code: -32600, message: 'Invalid Request' } });
    }
    const id: Id =
      typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null;
    // Own properties only: `constructor`, `toString` or `__proto__` is no method of the server.
    const methods = options.methods;
    const extra =
      methods !== undefined && Object.prototype.hasOwnProperty.call(methods, message.method)
        ? methods[message.method]
        : undefined;
    if (extra) {
      try {
        return reply(id, { result: extra(message.params) ?? {} });
      } catch (e) {
        return reply(id, { error: { code: INVALID_PARAMS, message: (e as Error).message } });
      }
    }
    if (message.method !== 'tasks/stream') {
      return reply(id, { error: { code: -32601, message: 'Method not found' } });
    }
    let opening: TaskStreamOpening;
    try {
      // A synchronous log answers at once (no await: its behaviour is as it was).
      const opened = log.openStream(message.params, request.signal);
      opening = isPromiseLike(opened) ? await bounded(opened, openTimeoutMs) : opened;
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      return reply(id, {
        error: { code: INTERNAL_ERROR, message: `tasks/stream: the task event log failed: ${why}` },
      });
    }
    if (!opening.ok) {
      return reply(id, { error: opening.error }, isEventsGone(opening.error) ? goneStatus : 200);
    }
    const events = opening.events;
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const next = await events.next();
          if (next.done) {
            controller.enqueue(encoder.encode(sse({ jsonrpc: '2.0', id, result: {} })));
            controller.close();
            return;
          }
          const notification = {
            jsonrpc: '2.0',
            method: 'notifications/tasks/event',
            params: next.value,
          };
          controller.enqueue(encoder.encode(sse(notification)));
        } catch (e) {
          // A live stream that fell behind retention ends with events_gone, never a skip.
          const error =
            e instanceof EventsGoneError
              ? e.toJsonRpc()
              : { code: INTERNAL_ERROR, message: (e as Error).message };
          controller.enqueue(encoder.encode(sse({ jsonrpc: '2.0', id, error })));
          controller.close();
        }
      },
      cancel() {
        void events.return(undefined);
      },
    });
    return new Response(body, {
      status: 200,
      headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
    });
  };
}
