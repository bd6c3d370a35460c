/**
 * `fetchTaskStream(fetch, url, params)`: sends one `tasks/stream` request over HTTP (a JSON-RPC
 * POST, as MCP's Streamable HTTP transport does) and yields what comes back, one
 * {@link TaskStreamItem} at a time: each JSON-RPC message of an event stream, or the one
 * JSON-RPC message (or none) of any other answer, with the HTTP status. It judges nothing:
 * `taskStreamGuard().follow` does. Ending the iteration early aborts the request.
 */
import { createParser } from 'eventsource-parser';

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

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

let nextId = 1;

/**
 * POSTs `tasks/stream` with `params` to `url` and yields the answer's items. `init` adds
 * headers (a session id, authorization) and a `signal`.
 *
 * @category Runtime
 */
export async function* fetchTaskStream(
  fetchFn: typeof fetch,
  url: string | URL,
  params: TaskStreamParams,
  init: { headers?: ConstructorParameters<typeof Headers>[0]; signal?: AbortSignal } = {},
): AsyncGenerator<TaskStreamItem, void, undefined> {
  const abort = new AbortController();
  const outer = init.signal;
  const forward = () => abort.abort(outer!.reason);
  if (outer?.aborted) forward();
  else outer?.addEventListener('abort', forward, { once: true });
  try {
    const headers = new Headers(init.headers);
    headers.set('content-type', 'application/json');
    headers.set('accept', 'application/json, text/event-stream');
    const response = await fetchFn(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tasks/stream', params }),
      signal: abort.signal,
    });
    const status = response.status;
    const type = response.headers.get('content-type') ?? '';
    if (!/^\s*text\/event-stream\s*(;|$)/i.test(type) || !response.body) {
      const text = await response.text();
      const message = text.trim() === '' ? undefined : parse(text);
      yield message === undefined ? { status } : { status, message };
      return;
    }
    const queue: TaskStreamItem[] = [];
    const parser = createParser({
      onEvent: (e) => {
        const message = parse(e.data);
        if (message !== undefined) queue.push({ status, message });
      },
    });
    const decoder = new TextDecoder();
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(decoder.decode(value, { stream: true }));
        while (queue.length > 0) yield queue.shift()!;
      }
      parser.feed(decoder.decode());
      while (queue.length > 0) yield queue.shift()!;
    } finally {
      reader.cancel().catch(() => {});
    }
  } finally {
    outer?.removeEventListener('abort', forward);
    abort.abort();
  }
}
