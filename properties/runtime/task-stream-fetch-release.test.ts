/**
 * fetchTaskStream releases what it holds: the body it stops reading is cancelled (over a bound,
 * or when the caller leaves early), the request is aborted once the answer is done, and the
 * caller's signal is left without the listener the call added. And an event stream ends as
 * SSE says: an event whose blank line is the body's last byte, a lone CR, is delivered, and an
 * event whose blank line never came is not. The fetch is
 * in-process (no network): what the call does to the body and the signal is seen directly, as
 * the mutation suite (`npm run mutation:tasks`) needs.
 */
import { getEventListeners } from 'node:events';
import { describe, expect, test } from 'vitest';
import { TaskStreamLimitError } from '../../src/runtime/task-stream-error.js';
import { fetchTaskStream, type TaskStreamItem } from '../../src/runtime/task-stream-fetch.js';

const utf8 = (s: string) => new TextEncoder().encode(s);

/** An in-process fetch answering with `chunks` (then closing, unless `open`); records its use. */
function fake(
  chunks: Uint8Array[],
  { type = 'text/event-stream', status = 200, open = false } = {},
) {
  const seen = { cancelled: false, signal: null as AbortSignal | null };
  const fetchFn = ((_url: unknown, init: RequestInit) => {
    seen.signal = init.signal ?? null;
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        for (const chunk of chunks) c.enqueue(chunk);
        if (!open) c.close();
      },
      cancel() {
        seen.cancelled = true;
      },
    });
    return Promise.resolve(new Response(body, { status, headers: { 'content-type': type } }));
  }) as unknown as typeof fetch;
  return { fetchFn, seen };
}

async function collect(
  fetchFn: typeof fetch,
  init: Parameters<typeof fetchTaskStream>[3] = {},
  leaveAfter = Infinity,
) {
  const got: TaskStreamItem[] = [];
  let error: unknown = null;
  try {
    for await (const item of fetchTaskStream(
      fetchFn,
      'http://127.0.0.1/mcp',
      { taskId: 't' },
      init,
    )) {
      got.push(item);
      if (got.length >= leaveAfter) break;
    }
  } catch (e) {
    error = e;
  }
  return { got, error };
}

const EVENT = 'data: {"jsonrpc":"2.0","method":"m"}\n\n';

describe('what a call releases', () => {
  test("an answer read to its end: the request is aborted after it, the caller's signal keeps no listener", async () => {
    const outer = new AbortController();
    const f = fake([utf8(EVENT)]);
    const r = await collect(f.fetchFn, { signal: outer.signal });
    expect(r.got).toHaveLength(1);
    expect(f.seen.signal?.aborted).toBe(true);
    expect(getEventListeners(outer.signal, 'abort')).toHaveLength(0);
    const json = fake([utf8('{"id":1,"result":{}}')], { type: 'application/json' });
    await collect(json.fetchFn, { signal: outer.signal });
    expect(json.seen.signal?.aborted).toBe(true);
    expect(getEventListeners(outer.signal, 'abort')).toHaveLength(0);
  });

  test("while the answer is read, the caller's signal holds one listener, and the request is live", async () => {
    const outer = new AbortController();
    const f = fake([utf8(EVENT)], { open: true });
    const it = fetchTaskStream(
      f.fetchFn,
      'http://127.0.0.1/mcp',
      { taskId: 't' },
      { signal: outer.signal },
    );
    expect((await it.next()).done).toBe(false);
    expect(getEventListeners(outer.signal, 'abort')).toHaveLength(1);
    expect(f.seen.signal?.aborted).toBe(false);
    await it.return(undefined);
    expect(f.seen.signal?.aborted).toBe(true);
    expect(getEventListeners(outer.signal, 'abort')).toHaveLength(0);
  });

  test("the caller's abort runs once: its listener is gone as soon as it fired", async () => {
    const outer = new AbortController();
    const f = fake([utf8(EVENT + EVENT)], { open: true });
    const it = fetchTaskStream(
      f.fetchFn,
      'http://127.0.0.1/mcp',
      { taskId: 't' },
      { signal: outer.signal },
    );
    expect((await it.next()).done).toBe(false);
    outer.abort(new Error('stop'));
    expect(f.seen.signal?.aborted).toBe(true);
    expect(getEventListeners(outer.signal, 'abort')).toHaveLength(0);
    await it.return(undefined);
  });

  test('a caller that leaves an event stream early cancels its body', async () => {
    const f = fake([utf8(EVENT + EVENT)], { open: true });
    const r = await collect(f.fetchFn, {}, 1);
    expect(r.got).toHaveLength(1);
    expect(f.seen.cancelled).toBe(true);
  });

  test('an event over maxEventBytes cancels the body', async () => {
    const f = fake([utf8('data: "' + 'x'.repeat(100))], { open: true });
    const r = await collect(f.fetchFn, { maxEventBytes: 10 });
    expect(r.error).toBeInstanceOf(TaskStreamLimitError);
    expect(f.seen.cancelled).toBe(true);
  });

  test('a body over maxBodyBytes cancels the body', async () => {
    const f = fake([utf8('"' + 'x'.repeat(100))], { type: 'application/json', open: true });
    const r = await collect(f.fetchFn, { maxBodyBytes: 10 });
    expect(r.error).toBeInstanceOf(TaskStreamLimitError);
    expect(f.seen.cancelled).toBe(true);
  });
});

describe('the bound of one event holds across chunks', () => {
  // A chunk that ends one event and begins the next: the bytes of the new event's beginning
  // count toward its bound, so an event over maxEventBytes is refused however it is cut.
  test('an event begun in the chunk that ended the one before it is bounded from its first byte', async () => {
    const head = 'data: 1\n\n'; // 9 bytes: an event of its own
    const begun = 'data: "' + 'y'.repeat(50); // 57 bytes of the next event
    const rest = 'y'.repeat(10) + '"\n\n'; // 13 more: 70 bytes in all, over 64
    const f = fake([utf8(head + begun), utf8(rest)]);
    const r = await collect(f.fetchFn, { maxEventBytes: 64 });
    expect(r.got).toEqual([{ status: 200, message: 1 }]);
    expect(r.error).toBeInstanceOf(TaskStreamLimitError);
    expect((r.error as TaskStreamLimitError).bytes).toBe(69);
    // The same event within the bound passes, cut the same way.
    const fits = fake([utf8(head + begun), utf8('y'.repeat(4) + '"\n\n')]);
    expect((await collect(fits.fetchFn, { maxEventBytes: 64 })).got).toEqual([
      { status: 200, message: 1 },
      { status: 200, message: 'y'.repeat(54) },
    ]);
  });

  test('CR line ends split the count too: many small events in one chunk pass, a long one spanning chunks is refused', async () => {
    const many = Array.from({ length: 20 }, (_, i) => `data: ${i}\r\r`).join('');
    const small = await collect(fake([utf8(many)]).fetchFn, { maxEventBytes: 20 });
    expect(small.error).toBeNull();
    expect(small.got).toHaveLength(20); // the last too: its lone CR is the body's end
    const long = fake([
      utf8('data: 1\r\rdata: "' + 'y'.repeat(50)),
      utf8('y'.repeat(30) + '"\r\r'),
    ]);
    const r = await collect(long.fetchFn, { maxEventBytes: 64 });
    expect(r.error).toBeInstanceOf(TaskStreamLimitError);
  });

  test('many events in one chunk, each within the bound, pass', async () => {
    const many = Array.from({ length: 50 }, (_, i) => `data: ${i}\n\n`).join('');
    const r = await collect(fake([utf8(many)]).fetchFn, { maxEventBytes: 16 });
    expect(r.error).toBeNull();
    expect(r.got).toHaveLength(50);
  });
});

describe('how an event stream ends', () => {
  // A lone CR ends a line (SSE: "a single CR not followed by LF"), but the parser waits for the
  // byte after it, which could be the LF of a CRLF. At the end of the body no byte is coming:
  // an event whose blank line is that last CR is complete and is delivered. An event whose
  // blank line never came is discarded, as the SSE spec says of pending data at the end.
  test('an event ended by the last byte of the body, a lone CR, is delivered', async () => {
    const r = await collect(fake([utf8('data: 1\r\r')]).fetchFn);
    expect(r).toStrictEqual({ got: [{ status: 200, message: 1 }], error: null });
    // Twenty such events in one chunk: all twenty, the last included.
    const many = Array.from({ length: 20 }, (_, i) => `data: ${i}\r\r`).join('');
    const all = await collect(fake([utf8(many)]).fetchFn, { maxEventBytes: 20 });
    expect(all.got.map((g) => g.message)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    // The CR in one chunk, then an empty chunk: still the last byte of the body.
    const split = await collect(fake([utf8('data: 2\r\r'), new Uint8Array(0)]).fetchFn);
    expect(split.got).toStrictEqual([{ status: 200, message: 2 }]);
  });

  test('an event whose blank line never came is discarded, however its last line ended', async () => {
    for (const tail of ['data: 1', 'data: 1\n', 'data: 1\r\n', 'data: 1\r']) {
      const r = await collect(fake([utf8('data: 0\n\n' + tail)]).fetchFn);
      expect(r, JSON.stringify(tail)).toStrictEqual({
        got: [{ status: 200, message: 0 }],
        error: null,
      });
    }
  });

  // After a lone CR the parser holds the event until a chunk with a line end comes: a body
  // that ends with an incomplete line after the CR (here the first byte of a UTF-8 character)
  // ends no line of its own, but the CR before it still ended the event.
  test('an event ended by a lone CR before an incomplete last line is delivered, and counts as an answer under a refusal', async () => {
    for (const cut of [
      new Uint8Array([...utf8('data: 1\r\r'), 0xe2]),
      utf8('data: 1\r\rdata: 5'),
      utf8('data: 1\r\rdata: 5\r'),
    ]) {
      expect(await collect(fake([cut]).fetchFn)).toStrictEqual({
        got: [{ status: 200, message: 1 }],
        error: null,
      });
    }
    const refusal = new Uint8Array([...utf8('data: {"error":{"code":7}}\r\r'), 0xe2]);
    expect(await collect(fake([refusal], { status: 500 }).fetchFn)).toStrictEqual({
      got: [{ status: 500, message: { error: { code: 7 } } }],
      error: null,
    });
  });

  test('an answer without a content type is no event stream: its body is one JSON message or none', async () => {
    const untyped = (text: string) =>
      ((_url: unknown, _init: RequestInit) => {
        const body = new ReadableStream<Uint8Array>({
          start(c) {
            c.enqueue(utf8(text));
            c.close();
          },
        });
        const response = new Response(body, { status: 200 });
        expect(response.headers.get('content-type')).toBeNull();
        return Promise.resolve(response);
      }) as unknown as typeof fetch;
    expect(await collect(untyped('{"id":1,"result":{}}'))).toStrictEqual({
      got: [{ status: 200, message: { id: 1, result: {} } }],
      error: null,
    });
    expect(await collect(untyped('data: 1\n\n'))).toStrictEqual({
      got: [{ status: 200 }],
      error: null,
    });
  });
});
