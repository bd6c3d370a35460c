/**
 * The task runtime's small pieces, exactly: the wire facts of a received item (factsOf, goneOf),
 * the errors' names, messages and fields, the handler's answer to each kind of request, and
 * fetchTaskStream's request and its reading of each kind of answer. Exact values, so that a
 * changed word or bound is a failing test (the mutation suite, `npm run mutation:tasks`).
 */
import { describe, expect, test } from 'vitest';
import { factsOf, goneOf } from '../../src/runtime/task-guard-track.js';
import {
  afterText,
  TaskGuardCapacityError,
  TaskStreamLimitError,
  TaskStreamResumptionError,
} from '../../src/runtime/task-stream-error.js';
import {
  DEFAULT_TASK_STREAM_BYTES,
  fetchTaskStream,
  type TaskStreamItem,
} from '../../src/runtime/task-stream-fetch.js';
import { TaskEventLog, taskStreamHandler } from '../../src/runtime/index.js';
import { StreamResumptionError } from '../../src/reference.js';
import { serveFetch } from '../../src/conformance/fetch-host.js';

const note = {
  jsonrpc: '2.0',
  method: 'notifications/tasks/event',
  params: { taskId: 't', seq: 3 },
};

describe('factsOf and goneOf', () => {
  test('each kind of item', () => {
    expect(factsOf({ status: 200, message: note })).toEqual([
      { type: 'tasks/event', taskId: 't', seq: 3 },
    ]);
    expect(factsOf({ status: 200, message: { method: 'notifications/tasks/event' } })).toEqual([
      { type: 'tasks/event', taskId: undefined, seq: undefined },
    ]);
    expect(factsOf({ status: 200, message: { method: 'notifications/progress' } })).toEqual([]);
    expect(factsOf({ status: 500, message: { method: 'notifications/progress' } })).toEqual([]);
    expect(factsOf({ status: 410, message: { error: { code: 1 } } })).toEqual([
      { type: 'tasks/error', status: 410, error: { code: 1 } },
    ]);
    expect(factsOf({ status: 200, message: { result: {} } })).toEqual([{ type: 'tasks/result' }]);
    expect(factsOf({ status: 500, message: { result: {} } })).toEqual([
      { type: 'tasks/error', status: 500 },
    ]);
    expect(factsOf({ status: 200 })).toEqual([]);
    expect(factsOf({ status: 200, message: [note] })).toEqual([]);
    expect(factsOf({ status: 200, message: null })).toEqual([]);
    expect(factsOf({ status: 200, message: 'text' })).toEqual([]);
    expect(factsOf({ status: 404 })).toEqual([{ type: 'tasks/error', status: 404 }]);
    expect(factsOf({ status: 302, message: [1] })).toEqual([{ type: 'tasks/error', status: 302 }]);
    expect(factsOf({ status: 200, message: { other: 1 } })).toEqual([]);
  });

  test('goneOf reads earliestSeq of an events_gone error only', () => {
    const gone = (data: unknown, type = 'tasks/error') =>
      goneOf({ type, error: { code: 1, data } });
    expect(gone({ reason: 'events_gone', earliestSeq: 9 })).toBe(9);
    expect(gone({ reason: 'events_gone', earliestSeq: 9 }, 'tasks/event')).toBeNull();
    expect(gone({ reason: 'other', earliestSeq: 9 })).toBeNull();
    expect(gone({ reason: 'events_gone', earliestSeq: '9' })).toBeNull();
    expect(gone({ reason: 'events_gone', earliestSeq: 1.5 })).toBeNull();
    expect(gone({ reason: 'events_gone' })).toBeNull();
    expect(gone(undefined)).toBeNull();
    expect(goneOf({ type: 'tasks/error' })).toBeNull();
    expect(goneOf({ type: 'tasks/error', status: 410 })).toBeNull();
  });
});

describe('the task errors', () => {
  test('names, messages, fields and cause', () => {
    expect([afterText(null), afterText(undefined), afterText(0), afterText(7)]).toEqual([
      'without after',
      'without after',
      'with after 0',
      'with after 7',
    ]);
    const cause = new Error('x');
    const e = new TaskStreamResumptionError('t', 4, 'why', 'skip', undefined, { cause });
    expect(e).toBeInstanceOf(StreamResumptionError);
    expect([e.name, e.message, e.taskId, e.after, e.code, e.outcome, e.cause]).toEqual([
      'TaskStreamResumptionError',
      'task "t", tasks/stream with after 4: why',
      't',
      4,
      'skip',
      'resumption-failed',
      cause,
    ]);
    expect('cause' in new TaskStreamResumptionError('t', null, 'w', 'skip')).toBe(false);
    const lost = new TaskStreamResumptionError('t', null, 'w', 'session-gone', 'session-lost');
    expect([lost.message, lost.outcome]).toEqual([
      'task "t", tasks/stream without after: w',
      'session-lost',
    ]);
    const ev = new TaskStreamLimitError('t', 1, 'maxEventBytes', 10);
    expect([ev.name, ev.message, ev.code, ev.limit, ev.bytes, ev.outcome]).toEqual([
      'TaskStreamLimitError',
      'task "t", tasks/stream with after 1: one SSE event went over maxEventBytes (10 bytes): the answer was given up',
      'bad-status',
      'maxEventBytes',
      10,
      'resumption-failed',
    ]);
    const body = new TaskStreamLimitError('t', null, 'maxBodyBytes', 11);
    expect(body.message).toBe(
      'task "t", tasks/stream without after: a body that is not an event stream went over maxBodyBytes (11 bytes): the answer was given up',
    );
    const cap = new TaskGuardCapacityError(3);
    expect([cap.name, cap.message, cap.maxTasks]).toEqual([
      'TaskGuardCapacityError',
      'taskStreamGuard: already following maxTasks (3) tasks; forget finished ones first',
      3,
    ]);
  });
});

describe('taskStreamHandler answers each request exactly', () => {
  const log = new TaskEventLog();
  const handle = taskStreamHandler(log, {
    methods: {
      'x/ok': (p) => ({ got: p }),
      'x/empty': () => undefined,
      'x/throws': () => {
        throw new Error('bad params');
      },
    },
  });
  const post = async (body: string, method = 'POST') => {
    const r = await handle(
      new Request('http://127.0.0.1/mcp', { method, ...(method === 'POST' ? { body } : {}) }),
    );
    return { status: r.status, type: r.headers.get('content-type'), text: await r.text() };
  };

  test('refusals', async () => {
    expect(await post('', 'GET')).toEqual({
      status: 405,
      type: 'text/plain;charset=UTF-8',
      text: 'tasks/stream is served on POST',
    });
    const parse = await post('{');
    expect(parse.status).toBe(200);
    expect(parse.type).toBe('application/json');
    expect(JSON.parse(parse.text)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error' },
    });
    for (const body of ['null', '7', '{"id":1}', '{"id":1,"method":5}']) {
      expect(JSON.parse((await post(body)).text), body).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid Request' },
      });
    }
    expect(JSON.parse((await post('{"jsonrpc":"2.0","id":"a","method":"nope"}')).text)).toEqual({
      jsonrpc: '2.0',
      id: 'a',
      error: { code: -32601, message: 'Method not found' },
    });
  });

  test('ids: a string or a number is echoed, anything else is null', async () => {
    for (const [id, echoed] of [
      ['"s"', 's'],
      ['4', 4],
      ['true', null],
      ['{}', null],
      ['null', null],
    ] as const) {
      const r = JSON.parse(
        (await post(`{"jsonrpc":"2.0","id":${id},"method":"x/ok","params":1}`)).text,
      );
      expect(r, id).toEqual({ jsonrpc: '2.0', id: echoed, result: { got: 1 } });
    }
  });

  test('extra methods: a result, an empty result, a thrown error as -32602', async () => {
    expect(JSON.parse((await post('{"id":1,"method":"x/empty"}')).text)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {},
    });
    expect(JSON.parse((await post('{"id":1,"method":"x/throws"}')).text)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32602, message: 'bad params' },
    });
  });

  test('a stream is text/event-stream, one message per event, then the result', async () => {
    const taskId = log.createTask();
    log.append(taskId, 'com.example.a', { n: 1 });
    log.complete(taskId);
    const r = await handle(
      new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tasks/stream', params: { taskId } }),
      }),
    );
    expect([r.status, r.headers.get('content-type'), r.headers.get('cache-control')]).toEqual([
      200,
      'text/event-stream',
      'no-cache',
    ]);
    const data = (await r.text())
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)) as unknown);
    expect(data).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/tasks/event',
        params: expect.objectContaining({ seq: 0, taskId, type: 'com.example.a' }) as unknown,
      },
      { jsonrpc: '2.0', id: 9, result: {} },
    ]);
  });

  test('a live reader that falls behind retention gets events_gone in the stream, and a cancelled stream stops', async () => {
    const small = new TaskEventLog({ maxEventsPerTask: 2 });
    const h = taskStreamHandler(small);
    const taskId = small.createTask();
    small.append(taskId, 'com.example.a', {});
    const r = await h(
      new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tasks/stream', params: { taskId } }),
      }),
    );
    const reader = r.body!.getReader();
    await reader.read(); // seq 0
    for (let i = 0; i < 5; i++) small.append(taskId, 'com.example.a', {});
    let text = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    const last = JSON.parse(text.trim().split('\n').at(-1)!.slice(6)) as unknown;
    expect(last).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: {
        code: -32010,
        message: 'Task events are no longer available',
        data: { reason: 'events_gone', taskId, earliestSeq: 4 },
      },
    });
  });
});

describe('fetchTaskStream: the request and each kind of answer', () => {
  async function exchange(
    answer: (request: Request) => Response,
    params = { taskId: 't', after: 2 },
    init = {},
  ) {
    const requests: { headers: Headers; body: unknown }[] = [];
    const host = await serveFetch(async (request) => {
      requests.push({ headers: request.headers, body: await request.json() });
      return answer(request);
    });
    try {
      const got: TaskStreamItem[] = [];
      let error: unknown = null;
      try {
        for await (const item of fetchTaskStream(fetch, host.url, params, init)) got.push(item);
      } catch (e) {
        error = e;
      }
      return { got, error, requests };
    } finally {
      await host.close();
    }
  }

  test('the request: a JSON-RPC POST with fresh ids, both content types accepted, headers kept', async () => {
    const json = () => new Response('', { headers: { 'content-type': 'application/json' } });
    const a = await exchange(json, { taskId: 't', after: 2 }, { headers: { 'x-k': 'v' } });
    const b = await exchange(json);
    const [ra, rb] = [a.requests[0]!, b.requests[0]!];
    expect(ra.headers.get('content-type')).toBe('application/json');
    expect(ra.headers.get('accept')).toBe('application/json, text/event-stream');
    expect(ra.headers.get('x-k')).toBe('v');
    const body = ra.body as { jsonrpc: string; id: number; method: string; params: unknown };
    expect([body.jsonrpc, body.method, body.params]).toEqual([
      '2.0',
      'tasks/stream',
      { taskId: 't', after: 2 },
    ]);
    expect((rb.body as { id: number }).id).toBe(body.id + 1);
    expect(DEFAULT_TASK_STREAM_BYTES).toBe(1 << 20);
  });

  test('bodies that are not event streams: empty, blank, not JSON, JSON', async () => {
    const answer =
      (text: string, status = 200, type = 'application/json') =>
      () =>
        new Response(text, { status, headers: { 'content-type': type } });
    expect((await exchange(answer(''))).got).toEqual([{ status: 200 }]);
    expect((await exchange(answer('  \n'))).got).toEqual([{ status: 200 }]);
    expect((await exchange(answer('{nope'))).got).toEqual([{ status: 200 }]);
    expect((await exchange(answer('{"id":1,"result":{}}', 200, 'text/plain'))).got).toEqual([
      { status: 200, message: { id: 1, result: {} } },
    ]);
    expect((await exchange(answer('{"error":{"code":5}}', 400))).got).toEqual([
      { status: 400, message: { error: { code: 5 } } },
    ]);
    // A body of exactly maxBodyBytes is read; one byte more is not.
    const exact = await exchange(answer('"' + 'x'.repeat(8) + '"'), undefined, {
      maxBodyBytes: 10,
    });
    expect(exact.got).toEqual([{ status: 200, message: 'x'.repeat(8) }]);
    const over = await exchange(answer('"' + 'x'.repeat(9) + '"'), undefined, { maxBodyBytes: 10 });
    expect((over.error as TaskStreamLimitError).bytes).toBe(11);
  });

  test('event-stream content types, with parameters and spaces, are read as streams', async () => {
    const sse = 'data: {"id":1,"result":{}}\n\n';
    for (const type of [
      'text/event-stream',
      'text/event-stream; charset=utf-8',
      ' Text/Event-Stream ',
    ]) {
      const r = await exchange(() => new Response(sse, { headers: { 'content-type': type } }));
      expect(r.got, type).toEqual([{ status: 200, message: { id: 1, result: {} } }]);
    }
    for (const type of ['xtext/event-stream', 'text/event-streamx', 'text/event-stream-x']) {
      const r = await exchange(() => new Response(sse, { headers: { 'content-type': type } }));
      expect(r.got, type).toEqual([{ status: 200 }]);
    }
  });

  test('statuses 300..399 are redirects, answered without a body; 299 and 400 are not', async () => {
    for (const status of [300, 399]) {
      const r = await exchange(
        () =>
          new Response('{"id":1,"result":{}}', {
            status,
            headers: { 'content-type': 'application/json' },
          }),
      );
      expect(r.got, String(status)).toEqual([{ status }]);
    }
    for (const status of [299, 400]) {
      const r = await exchange(
        () =>
          new Response('{"id":1,"result":{}}', {
            status,
            headers: { 'content-type': 'application/json' },
          }),
      );
      expect(r.got, String(status)).toEqual([{ status, message: { id: 1, result: {} } }]);
    }
  });

  test('an event stream: data that is not JSON is skipped; under a refusal, errors only, or the status', async () => {
    const stream =
      (text: string, status = 200) =>
      () =>
        new Response(text, { status, headers: { 'content-type': 'text/event-stream' } });
    const mixed = 'data: nope\n\ndata: {"method":"m"}\n\n: c\n\ndata: {"error":{"code":1}}\n\n';
    expect((await exchange(stream(mixed))).got).toEqual([
      { status: 200, message: { method: 'm' } },
      { status: 200, message: { error: { code: 1 } } },
    ]);
    expect((await exchange(stream(mixed, 500))).got).toEqual([
      { status: 500, message: { error: { code: 1 } } },
    ]);
    expect(
      (await exchange(stream('data: {"method":"m","error":1}\n\ndata: [1]\n\n', 500))).got,
    ).toEqual([{ status: 500 }]);
    expect((await exchange(stream('', 503))).got).toEqual([{ status: 503 }]);
    expect((await exchange(stream('', 200))).got).toEqual([]);
    // A stream cut inside an event still delivers the events before it.
    expect((await exchange(stream('data: {"id":1,"result":{}}\n\ndata: {"x"'))).got).toEqual([
      { status: 200, message: { id: 1, result: {} } },
    ]);
  });

  test('an event of exactly maxEventBytes passes; comments reset the count', async () => {
    const line = `data: "${'y'.repeat(40)}"\n\n`; // 50 bytes
    const ok = await exchange(
      () => new Response(line, { headers: { 'content-type': 'text/event-stream' } }),
      undefined,
      { maxEventBytes: line.length },
    );
    expect(ok.got).toEqual([{ status: 200, message: 'y'.repeat(40) }]);
    const comments = `: ${'z'.repeat(30)}\n\n`.repeat(20);
    const many = await exchange(
      () => new Response(comments, { headers: { 'content-type': 'text/event-stream' } }),
      undefined,
      { maxEventBytes: 64 },
    );
    expect(many.error).toBeNull();
  });

  test('an abort by the caller stays an abort, before and during the call', async () => {
    const before = new AbortController();
    before.abort(new Error('mine'));
    const r = await exchange(() => new Response('{}'), undefined, { signal: before.signal });
    expect(r.error).not.toBeInstanceOf(TaskStreamResumptionError);
    expect(r.requests).toHaveLength(0);
    const during = new AbortController();
    const host = await serveFetch(
      async () =>
        new Response(
          new ReadableStream({
            start(c) {
              c.enqueue(new TextEncoder().encode('data: {"method":"m"}\n\n'));
            },
          }),
          { headers: { 'content-type': 'text/event-stream' } },
        ),
    );
    try {
      const got: unknown[] = [];
      const error = await (async () => {
        for await (const item of fetchTaskStream(
          fetch,
          host.url,
          { taskId: 't' },
          { signal: during.signal },
        )) {
          got.push(item);
          during.abort(new Error('stop'));
        }
      })().catch((e: unknown) => e);
      expect(got).toHaveLength(1);
      expect(error).not.toBeInstanceOf(TaskStreamResumptionError);
    } finally {
      await host.close();
    }
  });

  test("a caller's timeout ends a call that waits for headers or for the body's next bytes, with its own reason", async () => {
    let stalls = 0;
    const host = await serveFetch(async (request) => {
      stalls += 1;
      const body = (await request.json()) as { params: { taskId: string } };
      if (body.params.taskId === 'no-headers') return new Promise<Response>(() => {});
      // Headers and one event, then nothing: the body stays open.
      return new Response(
        new ReadableStream({
          start(c) {
            c.enqueue(new TextEncoder().encode('data: {"method":"m"}\n\n'));
          },
        }),
        { headers: { 'content-type': 'text/event-stream' } },
      );
    });
    try {
      for (const taskId of ['no-headers', 'silent-body']) {
        const got: TaskStreamItem[] = [];
        const error = await (async () => {
          for await (const item of fetchTaskStream(
            fetch,
            host.url,
            { taskId },
            { signal: AbortSignal.timeout(100) },
          ))
            got.push(item);
        })().catch((e: unknown) => e);
        expect((error as Error).name, taskId).toBe('TimeoutError');
        expect(error, taskId).not.toBeInstanceOf(TaskStreamResumptionError);
        expect(got.length, taskId).toBe(taskId === 'silent-body' ? 1 : 0);
      }
      expect(stalls).toBe(2);
    } finally {
      await host.close();
    }
  });

  test('a refused connection is a TaskStreamResumptionError with its cause', async () => {
    const host = await serveFetch(async () => new Response('{}'));
    const url = host.url;
    await host.close();
    let error: unknown = null;
    try {
      for await (const item of fetchTaskStream(fetch, url, { taskId: 't', after: 1 })) void item;
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TaskStreamResumptionError);
    const e = error as TaskStreamResumptionError;
    expect([e.code, e.outcome, e.after]).toEqual(['no-response', 'resumption-failed', 1]);
    expect(e.cause).toBeInstanceOf(TypeError);
    expect(e.message).toMatch(
      /^task "t", tasks\/stream with after 1: the answer broke before it ended \(fetch failed\); call tasks\/stream again with the last seq processed as after$/,
    );
  });

  /** fetchTaskStream over an in-process fetch: the body's chunks arrive exactly as enqueued. */
  async function overFake(response: () => Response | Promise<Response>, init = {}) {
    const got: TaskStreamItem[] = [];
    let error: unknown = null;
    try {
      for await (const item of fetchTaskStream(
        (() => Promise.resolve().then(response)) as unknown as typeof fetch,
        'http://127.0.0.1/mcp',
        { taskId: 't', after: 3 },
        init,
      ))
        got.push(item);
    } catch (e) {
      error = e;
    }
    return { got, error };
  }
  const chunked =
    (chunks: Uint8Array[], type = 'text/event-stream', status = 200) =>
    () =>
      new Response(
        new ReadableStream({
          start(c) {
            for (const chunk of chunks) c.enqueue(chunk);
            c.close();
          },
        }),
        { status, headers: { 'content-type': type } },
      );
  const utf8 = (s: string) => new TextEncoder().encode(s);

  test('a character split across chunks is read whole, in an event stream and in a JSON body', async () => {
    const bytes = utf8('data: {"w":"é€"}\n\n');
    const cut = bytes.indexOf(0xe2) + 1; // inside the euro sign
    const sse = await overFake(chunked([bytes.slice(0, cut), bytes.slice(cut)]));
    expect(sse.got).toStrictEqual([{ status: 200, message: { w: 'é€' } }]);
    const json = utf8('{"w":"é€"}');
    const at = json.indexOf(0xe2) + 1;
    const body = await overFake(chunked([json.slice(0, at), json.slice(at)], 'application/json'));
    expect(body.got).toStrictEqual([{ status: 200, message: { w: 'é€' } }]);
  });

  test('an event of exactly maxEventBytes split across chunks passes, one byte more does not; the default bound is 1 MiB', async () => {
    // 62 bytes, no end of event yet, then its last line's 2: 64 before the blank line ends it.
    const head = utf8('data: "' + 'y'.repeat(55));
    const r = await overFake(chunked([head, utf8('"\n\n')]), { maxEventBytes: 64 });
    expect(r.got).toStrictEqual([{ status: 200, message: 'y'.repeat(55) }]);
    const over = await overFake(chunked([head, utf8('"\n\n')]), { maxEventBytes: 63 });
    expect((over.error as TaskStreamLimitError).bytes).toBe(64);
    const big = await overFake(chunked([utf8('data: '), new Uint8Array((1 << 20) + 16).fill(120)]));
    expect(big.error).toBeInstanceOf(TaskStreamLimitError);
    expect((big.error as TaskStreamLimitError).bytes).toBe((1 << 20) + 22);
    const under = await overFake(
      chunked([utf8('data: '), new Uint8Array((1 << 20) - 16).fill(120)]),
    );
    expect(under.error).toBeNull();
  });

  test('answers without a body, a refusal carrying primitives, and a fetch that rejects with no Error', async () => {
    expect(await overFake(() => new Response(null, { status: 302 }))).toStrictEqual({
      got: [{ status: 302 }],
      error: null,
    });
    expect(
      await overFake(
        () => new Response(null, { status: 204, headers: { 'content-type': 'application/json' } }),
      ),
    ).toStrictEqual({ got: [{ status: 204 }], error: null });
    const prims = await overFake(
      chunked(
        [utf8('data: 5\n\ndata: null\n\ndata: "s"\n\ndata: [1]\n\n')],
        'text/event-stream',
        500,
      ),
    );
    expect(prims).toStrictEqual({ got: [{ status: 500 }], error: null });
    const rejected = await overFake(() => Promise.reject(null as unknown as Error));
    expect(rejected.error).toBeInstanceOf(TaskStreamResumptionError);
    expect((rejected.error as Error).message).toContain('the answer broke before it ended (null)');
  });
});
