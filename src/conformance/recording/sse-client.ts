/**
 * The recording client's wire layer: MCP requests over real HTTP (`fetch`, loopback), SSE
 * parsed with `eventsource-parser`, every wait bounded. A hung server becomes a `timeout`
 * observation, never a hung harness; a stream larger than its byte budget is cut.
 */
import { createParser, type EventSourceParser } from 'eventsource-parser';

type ReadResult = Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']>>;

/** One item read from an SSE stream. */
export type SseItem =
  | { kind: 'event'; id: string | undefined; event: string | undefined; data: string }
  | { kind: 'comment' }
  | { kind: 'retry'; ms: number };

/** What a read gave: an item, the end of the stream, a timeout, or an error. */
export type SseRead =
  SseItem | { kind: 'end' } | { kind: 'timeout' } | { kind: 'error'; message: string };

/** Limits of one stream: bytes in total and bytes per event. */
export interface StreamLimits {
  /** Total bytes read before the stream is cut (default 16 MiB). */
  maxBytes?: number;
  /** Largest single event (default 4 MiB). */
  maxEventBytes?: number;
}

/** An open HTTP response being read as SSE. */
export class SseStream {
  private readonly queue: SseRead[] = [];
  private readonly parser: EventSourceParser;
  private readonly decoder = new TextDecoder();
  private reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  private pending: Promise<ReadResult> | undefined;
  private bytes = 0;
  private done = false;
  private readonly maxBytes: number;

  constructor(
    /** The HTTP status. */
    readonly status: number,
    /** The response headers. */
    readonly headers: Headers,
    body: ReadableStream<Uint8Array> | null,
    private readonly controller: AbortController,
    limits: StreamLimits = {},
  ) {
    this.maxBytes = limits.maxBytes ?? 16 * 1024 * 1024;
    this.reader = body?.getReader();
    if (!this.reader) this.done = true;
    this.parser = createParser({
      maxBufferSize: limits.maxEventBytes ?? 4 * 1024 * 1024,
      onEvent: (e) => this.queue.push({ kind: 'event', id: e.id, event: e.event, data: e.data }),
      onComment: () => this.queue.push({ kind: 'comment' }),
      onRetry: (ms) => this.queue.push({ kind: 'retry', ms }),
      onError: (err) => {
        if (err.type === 'max-buffer-size-exceeded') this.fail(`event larger than the limit`);
      },
    });
  }

  private fail(message: string): void {
    if (this.done) return;
    this.done = true;
    this.queue.push({ kind: 'error', message });
    this.abort();
  }

  /** The next item, or `end` / `error`, or `timeout` after `timeoutMs` with nothing new. */
  async next(timeoutMs: number): Promise<SseRead> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const item = this.queue.shift();
      if (item) return item;
      if (this.done || !this.reader) return { kind: 'end' };
      this.pending ??= this.reader.read();
      const left = deadline - Date.now();
      if (left <= 0) return { kind: 'timeout' };
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), left)));
      let result: ReadResult | 'timeout';
      try {
        result = await Promise.race([this.pending, timeout]);
      } catch (e) {
        this.pending = undefined;
        this.done = true;
        return { kind: 'error', message: e instanceof Error ? e.message : String(e) };
      } finally {
        clearTimeout(timer);
      }
      if (result === 'timeout') return { kind: 'timeout' };
      this.pending = undefined;
      if (result.done) {
        this.done = true;
        this.parser.feed(this.decoder.decode());
        this.parser.reset({ consume: true });
        continue;
      }
      this.bytes += result.value.byteLength;
      if (this.bytes > this.maxBytes) {
        this.fail(`stream exceeded ${this.maxBytes} bytes`);
        continue;
      }
      this.parser.feed(this.decoder.decode(result.value, { stream: true }));
    }
  }

  /** Cuts the connection (a client-side disconnect). */
  abort(): void {
    this.done = true;
    this.controller.abort();
    this.reader?.cancel().catch(() => {});
    this.pending?.catch(() => {});
  }
}

/** The answer to a request: an SSE stream, a JSON body, or nothing within the bound. */
export type HttpAnswer =
  | { kind: 'sse'; stream: SseStream }
  | { kind: 'json'; status: number; headers: Headers; body: unknown }
  | { kind: 'timeout' }
  | {
      kind: 'error';
      message: string;
      /** The `Location` of a 3xx answer, which the harness did not follow. */
      redirect?: string;
    };

/** The byte cap of a non-SSE body, the same as an SSE stream's default (16 MiB). */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** Reads `res`'s body as text, at most `max` bytes; `null` once it is larger. */
async function boundedText(res: Response, max: number): Promise<string | null> {
  const reader = res.body?.getReader();
  if (!reader) return '';
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    bytes += value.byteLength;
    if (bytes > max) {
      await reader.cancel().catch(() => {});
      return null;
    }
    text += decoder.decode(value, { stream: true });
  }
}

/**
 * Sends one request; resolves once headers arrive, or `timeout` after `timeoutMs`. Redirects
 * are never followed (`redirect: 'manual'`): a 3xx is an `error` naming its `Location`, so a
 * server under test cannot send the harness to another host. A non-SSE body larger than
 * {@link MAX_BODY_BYTES} (or `limits.maxBytes`) is an `error`, not a process out of memory.
 */
export async function request(
  fetchFn: typeof fetch,
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
  timeoutMs: number,
  limits?: StreamLimits,
): Promise<HttpAnswer> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error('timeout')), timeoutMs);
  let res: Response;
  try {
    res = await fetchFn(url, { ...init, signal: controller.signal, redirect: 'manual' });
  } catch (e) {
    clearTimeout(timer);
    if (controller.signal.aborted) return { kind: 'timeout' };
    return { kind: 'error', message: e instanceof Error ? e.message : String(e) };
  }
  clearTimeout(timer);
  if (res.status >= 300 && res.status < 400) {
    controller.abort();
    const location = res.headers.get('location');
    return {
      kind: 'error',
      redirect: location ?? '',
      message:
        `answered ${res.status} redirecting to ${location === null ? '(no Location)' : JSON.stringify(location)}; ` +
        'the harness never follows redirects',
    };
  }
  const type = res.headers.get('content-type') ?? '';
  if (type.includes('text/event-stream')) {
    return {
      kind: 'sse',
      stream: new SseStream(res.status, res.headers, res.body, controller, limits),
    };
  }
  // A JSON (or other) body: read it within the same bound.
  const bodyTimer = setTimeout(() => controller.abort(new Error('timeout')), timeoutMs);
  const max = limits?.maxBytes ?? MAX_BODY_BYTES;
  try {
    const text = await boundedText(res, max);
    if (text === null) {
      controller.abort();
      return {
        kind: 'error',
        message: `answered ${res.status} with a ${type || 'non-SSE'} body larger than ${max} bytes`,
      };
    }
    let body: unknown = text;
    try {
      body = text === '' ? null : JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { kind: 'json', status: res.status, headers: res.headers, body };
  } catch {
    return { kind: 'json', status: res.status, headers: res.headers, body: null };
  } finally {
    clearTimeout(bodyTimer);
  }
}
