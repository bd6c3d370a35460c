/**
 * `fetchTaskStream(fetch, url, params)`: sends one `tasks/stream` request over HTTP (a JSON-RPC
 * POST, as MCP's Streamable HTTP transport does) and yields what comes back, one
 * {@link TaskStreamItem} at a time: each JSON-RPC message of an event stream, or the one
 * JSON-RPC message (or none) of any other answer, with the HTTP status. It judges nothing:
 * `taskStreamGuard().follow` does. Ending the iteration early aborts the request.
 *
 * It fails closed and bounded: redirects are never followed (a 3xx is an answer, with no
 * message: the session id and headers never go to another origin); an event stream under a
 * status other than 200 yields its JSON-RPC errors only, never an event; one SSE event over
 * `maxEventBytes`, or another body over `maxBodyBytes`, ends the answer with a
 * {@link TaskStreamLimitError}; a connection that breaks ends it with a
 * {@link TaskStreamResumptionError} naming the task and `after` (never a raw `TypeError`).
 */
import { createParser } from 'eventsource-parser';
import { TaskStreamLimitError, TaskStreamResumptionError } from './task-stream-error.js';

/** One thing received in answer to a `tasks/stream` call. */
export interface TaskStreamItem {
  /** The HTTP status of the answer (200 for every message of an event stream). */
  status: number;
  /** A JSON-RPC message (a notification, the result, an error); absent: a body without one. */
  message?: unknown;
}

/** The params of a `tasks/stream` request. */
export interface TaskStreamParams {
  taskId: string;
  after?: number;
}

/** What a call adds to the request, and the bounds on its answer. */
export interface TaskStreamInit {
  headers?: ConstructorParameters<typeof Headers>[0];
  signal?: AbortSignal;
  /** The most bytes one SSE event (or comment) may take. Default 1 MiB. */
  maxEventBytes?: number;
  /** The most bytes of a body that is not an event stream. Default 1 MiB. */
  maxBodyBytes?: number;
}

const LF = 0x0a;
const CR = 0x0d;

/** Default bound of one SSE event and of a body that is not an event stream. */
export const DEFAULT_TASK_STREAM_BYTES = 1 << 20;

/** The JSON value of `text`; nothing (undefined) for a text that is not JSON, blank included. */
function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Not JSON: no message.
  }
}

/** `true` for a JSON-RPC error response: what an event stream under a non-200 may carry. */
const isErrorMessage = (m: unknown) =>
  typeof m === 'object' && m !== null && !Array.isArray(m) && 'error' in m && !('method' in m);

/** Reads a body that is not an event stream, up to `max` bytes. */
async function boundedText(
  body: ReadableStream<Uint8Array>,
  max: number,
  over: (bytes: number) => Error,
): Promise<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let bytes = 0;
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return text + decoder.decode();
      bytes += value.byteLength;
      if (bytes > max) throw over(bytes);
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

let nextId = 1;

/**
 * POSTs `tasks/stream` with `params` to `url` and yields the answer's items. `init` adds
 * headers (a session id, authorization), a `signal`, and the bounds of the answer.
 *
 * @category Runtime
 */
export async function* fetchTaskStream(
  fetchFn: typeof fetch,
  url: string | URL,
  params: TaskStreamParams,
  init: TaskStreamInit = {},
): AsyncGenerator<TaskStreamItem, void, undefined> {
  const after = params.after ?? null;
  const maxEvent = init.maxEventBytes ?? DEFAULT_TASK_STREAM_BYTES;
  const maxBody = init.maxBodyBytes ?? DEFAULT_TASK_STREAM_BYTES;
  const abort = new AbortController();
  const outer = init.signal;
  const forward = () => abort.abort(outer!.reason);
  if (outer?.aborted) forward();
  else outer?.addEventListener('abort', forward, { once: true });
  /** A failure of the network under the call, in the task's words (an abort stays itself). */
  const broken = (e: unknown): unknown =>
    outer?.aborted || e instanceof TaskStreamResumptionError
      ? e
      : new TaskStreamResumptionError(
          params.taskId,
          after,
          `the answer broke before it ended (${(e as Error)?.message ?? String(e)}); call tasks/stream again with the last seq processed as after`,
          'no-response',
          'resumption-failed',
          { cause: e },
        );
  try {
    const headers = new Headers(init.headers);
    headers.set('content-type', 'application/json');
    headers.set('accept', 'application/json, text/event-stream');
    let response: Response;
    try {
      response = await fetchFn(url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tasks/stream', params }),
        signal: abort.signal,
        // Never followed: a redirect would carry the session id and headers to another origin.
        redirect: 'manual',
      });
    } catch (e) {
      throw broken(e);
    }
    const status = response.status;
    if (status >= 300 && status < 400) {
      // A redirect is an answer without a message: a failure, never a resume elsewhere.
      response.body?.cancel().catch(() => {});
      yield { status };
      return;
    }
    // No content type (null, as the text "null") is no event stream either.
    const type = String(response.headers.get('content-type'));
    if (!/^\s*text\/event-stream\s*(;|$)/i.test(type) || !response.body) {
      let message: unknown;
      try {
        if (response.body) {
          // A blank body, or one that is not JSON, parses to nothing: the status alone.
          message = parse(
            await boundedText(
              response.body,
              maxBody,
              (bytes) => new TaskStreamLimitError(params.taskId, after, 'maxBodyBytes', bytes),
            ),
          );
        }
      } catch (e) {
        throw broken(e);
      }
      yield message === undefined ? { status } : { status, message };
      return;
    }
    yield* eventStream(response.body, status, params.taskId, after, maxEvent, broken);
  } finally {
    outer?.removeEventListener('abort', forward);
    abort.abort();
  }
}

/**
 * The JSON-RPC messages of an event stream, each bounded by `max` bytes; under a status other
 * than 200 only its errors (an event under a 500 is never a resume).
 */
async function* eventStream(
  body: ReadableStream<Uint8Array>,
  status: number,
  taskId: string,
  after: number | null,
  max: number,
  broken: (e: unknown) => unknown,
): AsyncGenerator<TaskStreamItem, void, undefined> {
  const queue: TaskStreamItem[] = [];
  /** Bytes received since the last event or comment ended: what one event may grow to. */
  let pending = 0;
  const parser = createParser({
    onEvent: (e) => {
      pending = 0;
      const message = parse(e.data);
      if (message === undefined) return;
      if (status === 200 || isErrorMessage(message)) queue.push({ status, message });
    },
    onComment: () => {
      pending = 0;
    },
  });
  const decoder = new TextDecoder();
  const feed = (piece: Uint8Array) => {
    pending += piece.byteLength;
    parser.feed(decoder.decode(piece, { stream: true }));
    if (pending > max) throw new TaskStreamLimitError(taskId, after, 'maxEventBytes', pending);
  };
  const reader = body.getReader();
  let answered = false;
  /** The last line end of the body so far (LF or CR; 0 before the first). */
  let lastEnd = 0;
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (e) {
        throw broken(e);
      }
      if (chunk.done) break;
      // Fed a line at a time: an event ending inside the chunk resets the count there, and the
      // bytes after it (the next event's beginning) count toward the next event's bound. (A
      // line end is one byte, never part of a UTF-8 character. After a lone CR the parser waits
      // for the next byte, so such an event ends, and the count resets, one line later.)
      const bytes = chunk.value;
      let start = 0;
      for (let i = 0; i !== bytes.length; i++) {
        if (bytes[i] !== LF && bytes[i] !== CR) continue;
        lastEnd = bytes[i]!;
        feed(bytes.subarray(start, i + 1));
        start = i + 1;
      }
      feed(bytes.subarray(start));
      while (queue.length > 0) {
        answered = true;
        yield queue.shift()!;
      }
    }
    // A lone CR ends a line ("a single CR not followed by LF"), but the parser holds the last
    // one, waiting for the byte after it (an LF would make CRLF one line end). None is coming:
    // an LF now makes it that one line end, so an event whose blank line was that CR is
    // delivered. What came after the CR is an incomplete line: it ends no event (pending data
    // is discarded at the end, as SSE says), and neither does anything the decoder still
    // holds (at most a replacement character, no line end), so the decoder is not flushed.
    if (lastEnd === CR) parser.feed('\n');
    while (queue.length > 0) {
      answered = true;
      yield queue.shift()!;
    }
    // A refusal whose event stream carried no error: the status alone is the answer.
    if (status !== 200 && !answered) yield { status };
  } finally {
    reader.cancel().catch(() => {});
  }
}
