/**
 * A network-free `fetch` for the guard's fast suite (guard-direct.test.ts): the test answers
 * every request itself with a `Response` whose body it feeds chunk by chunk (a {@link Wire}),
 * and sees what the guard sent (method, `Last-Event-ID`, `redirect`, the abort signal). An
 * answer that never comes rejects when the request is aborted, as fetch does.
 */

/** A response body the test writes, ends or breaks, and whose cancellation it sees. */
export interface Wire {
  body: ReadableStream<Uint8Array>;
  push(text: string | Uint8Array): void;
  end(): void;
  /** The connection breaks (the body errors). */
  reset(error?: Error): void;
  /** Set when the reader cancelled the body (`true`, or the reason given). */
  cancelled: unknown;
}

export function wire(...chunks: string[]): Wire {
  const encoder = new TextEncoder();
  let ctrl!: ReadableStreamDefaultController<Uint8Array>;
  const w: Wire = {
    body: new ReadableStream<Uint8Array>({
      start: (c) => void (ctrl = c),
      cancel: (reason) => void (w.cancelled = reason ?? true),
    }),
    push: (text) => ctrl.enqueue(typeof text === 'string' ? encoder.encode(text) : text),
    end: () => ctrl.close(),
    reset: (error = new Error('connection reset')) => ctrl.error(error),
    cancelled: undefined,
  };
  for (const c of chunks) w.push(c);
  return w;
}

/** What the guard sent. */
export interface Sent {
  method: string;
  lastEventId: string | null;
  redirect: RequestInit['redirect'];
  signal: AbortSignal | undefined;
}

/** One answer: a response (or a promise of one), or `'hang'`: the headers never come. */
export type Reply = Response | Promise<Response> | 'hang';

/** An SSE answer (status 200 unless given): a whole body (it ends), or one the test feeds. */
export function sseResponse(
  body: Wire | string | null,
  init: { status?: number; headers?: Record<string, string> } = {},
): Response {
  const whole = typeof body === 'string' ? wire(body) : null;
  whole?.end();
  const stream = body === null ? null : (whole ?? (body as Wire)).body;
  return new Response(stream, {
    status: init.status ?? 200,
    headers: init.headers ?? { 'content-type': 'text/event-stream' },
  });
}

/** A fetch that answers with `answer(sent, n)` (`n` counts the requests from 0). */
export function scriptedFetch(answer: (sent: Sent, n: number) => Reply): {
  fetch: typeof fetch;
  sent: Sent[];
} {
  const sent: Sent[] = [];
  const fake = (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? input : null;
    const headers = new Headers(init?.headers ?? request?.headers);
    const s: Sent = {
      method: (init?.method ?? request?.method ?? 'GET').toUpperCase(),
      lastEventId: headers.get('last-event-id'),
      redirect: init?.redirect,
      signal: init?.signal ?? undefined,
    };
    sent.push(s);
    const reply = answer(s, sent.length - 1);
    if (reply !== 'hang') return Promise.resolve(reply);
    return new Promise((_resolve, reject) => {
      const signal = init?.signal;
      if (signal?.aborted) return reject(signal.reason);
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  };
  return { fetch: fake as typeof fetch, sent };
}

/** SSE text of an event with an id (`null`: id-less data). */
export function ev(id: string | number | null, data: unknown = { n: id }): string {
  return `${id === null ? '' : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`;
}

/** What a reader of a guarded body got: its text, and the error it ended with. */
export async function readAll(res: Response): Promise<{ text: string; error: unknown }> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    return { text, error: null };
  } catch (error) {
    return { text, error };
  }
}
