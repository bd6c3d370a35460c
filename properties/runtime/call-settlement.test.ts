/**
 * How a failed stream ends its call (`endCalls: 'respond'`, the default), network-free: the
 * guard answers the SDK with a JSON-RPC error response for the pending request's id, once, and
 * every later reconnect of that call with a 405 sent by nobody. The loopback suite
 * (call-settles.test.ts) shows the same through real SDK clients; this one, a scripted `fetch`
 * and milliseconds a test, is what `npm run mutation:runtime` runs against guard-core.ts and
 * call-settlement.ts: it reads the settlement word for word, and what `resumptionFailureOf`
 * makes of every shape of error a call can reject with.
 */
import { afterEach, describe, expect, test, vi } from 'vitest';
import {
  continuityGuard,
  inspectGuard,
  RESUMPTION_ERROR_CODE,
  resumptionFailureOf,
  StreamResumptionError,
  type ContinuityGuardOptions,
} from '../../src/runtime/index.js';
import { settlementOf } from '../../src/runtime/call-settlement.js';
import {
  ev,
  readAll,
  scriptedFetch,
  sseResponse,
  wire,
  type Reply,
  type Sent,
} from './scripted-fetch.js';

const URL_ = 'http://127.0.0.1:9/mcp';
/** The id of an event the guard writes itself. */
const OWN_ID = /^mcpr-call-ended-[A-Za-z0-9_-]{12}-\d+$/;

function call(id: unknown, method: unknown = 'tools/call', params: unknown = { name: 'x' }) {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params });
}

/** A guard over scripted answers (`endCalls` left at its default unless given). */
function guard(answer: (sent: Sent, n: number) => Reply, options: ContinuityGuardOptions = {}) {
  const scripted = scriptedFetch(answer);
  const failures: StreamResumptionError[] = [];
  const f = continuityGuard(scripted.fetch, { onFailure: (e) => failures.push(e), ...options });
  const post = (body: string = call(1)) => f(URL_, { method: 'POST', body });
  const get = (cursor?: string) =>
    f(URL_, { method: 'GET', headers: cursor === undefined ? {} : { 'last-event-id': cursor } });
  return { f, sent: scripted.sent, failures, post, get, state: () => inspectGuard(f)! };
}

/** The settlement event that ends a body: its id and its JSON-RPC message. */
async function settlementIn(
  res: Response,
): Promise<{ id: string; message: Record<string, unknown> }> {
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/event-stream');
  const { text, error } = await readAll(res);
  expect(error).toBeNull();
  const m = /(?:^|\n\n)id: (.*)\ndata: (.*)\n\n$/.exec(text);
  expect(m, `one settlement event, got ${JSON.stringify(text)}`).not.toBeNull();
  return { id: m![1]!, message: JSON.parse(m![2]!) as Record<string, unknown> };
}

/** A call's stream (ids `ids`, then ended without its response) and its resume answered by `resume`. */
function brokenThenResumed(resume: () => Response, ids: string[] = ['1']) {
  return guard((s, n) => (n === 0 ? sseResponse(ids.map((id) => ev(id)).join('')) : resume()));
}

describe('a failed resume ends its call with one error response', () => {
  test('a 405 to the resume: the call gets its JSON-RPC error, word for word, as an SSE answer', async () => {
    const g = brokenThenResumed(() => new Response(null, { status: 405 }), ['ab1-s2-1']);
    // The stream ends before its response: the SDK reconnects with the last id.
    expect((await readAll(await g.post(call(7)))).text).toBe(ev('ab1-s2-1'));
    const res = await g.get('ab1-s2-1');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const { id, message } = await settlementIn(res);
    // The guard's own id: the prefix, this guard's random token, the stream's number.
    expect(id).toMatch(OWN_ID);
    expect(id.endsWith('-1')).toBe(true);
    const failure = g.failures[0]!;
    expect(g.failures).toHaveLength(1);
    expect(failure.code).toBe('bad-status');
    expect(message).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: RESUMPTION_ERROR_CODE,
        message: `resumption-failed: ${failure.message}`,
        data: {
          outcome: 'resumption-failed',
          code: 'bad-status',
          reason: failure.message,
          stream: 'ab1-s2',
          cursor: 'ab1-s2-1',
          lastDelivered: 'ab1-s2-1',
          requestId: 7,
          method: 'tools/call',
          seal: expect.any(String) as unknown,
        },
      },
    });
    expect(RESUMPTION_ERROR_CODE).toBe(-32030);
    // The call is ended: the guard holds nothing of it (issue 37, R3-4).
    expect(g.state()).toEqual({ streams: 0, failed: 0, owed: 0, pending: 0 });
    // The SDK reconnects after that event with its id: answered 405 by the guard, nothing sent.
    const sent = g.sent.length;
    const again = await g.get(id);
    expect(again.status).toBe(405);
    expect(again.statusText).toBe('call already ended by continuityGuard');
    expect(await again.text()).toBe('');
    expect(g.sent).toHaveLength(sent);
    expect(g.failures).toHaveLength(1);
  });

  test('what the call rejects with reads back as the guard failure, field for field', async () => {
    const g = brokenThenResumed(() => new Response(null, { status: 404 }));
    await readAll(await g.post(call('req-a', 'tools/call')));
    const { message } = await settlementIn(await g.get('1'));
    // The SDK's McpError: the JSON-RPC error's code, message and data.
    const rpc = message.error as { code: number; message: string; data: unknown };
    const back = resumptionFailureOf({ ...rpc });
    expect(back).toBeInstanceOf(StreamResumptionError);
    const failure = g.failures[0]!;
    expect(back!.message).toBe(failure.message);
    expect(back!.code).toBe('session-gone');
    expect(back!.outcome).toBe('session-lost');
    expect(back!.call).toEqual({
      requestId: 'req-a',
      method: 'tools/call',
      request: null,
      stream: null,
      cursor: '1',
      lastDelivered: '1',
    });
    expect(message.id).toBe('req-a');
  });

  test("with endCalls: 'error' the refusal is the error itself, and a later reconnect too", async () => {
    const g = guard(
      (s, n) => (n === 0 ? sseResponse(ev(1)) : new Response(null, { status: 405 })),
      { endCalls: 'error' },
    );
    await readAll(await g.post());
    const e = await g.get('1').then(
      () => null,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(StreamResumptionError);
    const e2 = await g.get('1').then(
      () => null,
      (x: unknown) => x,
    );
    expect(e2).toBe(e);
  });

  test('the standalone stream owes no call: its refusal is the error, never a settlement', async () => {
    const g = guard((s, n) => (n === 0 ? sseResponse(ev(1)) : new Response(null, { status: 405 })));
    await readAll(await g.get());
    const e = await g.get('1').then(
      () => null,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(StreamResumptionError);
    expect((e as StreamResumptionError).call).toMatchObject({
      requestId: null,
      method: null,
      request: null,
    });
  });

  test('a call whose stream ends with no id, or under clientResumes: false, is ended in its own body', async () => {
    const idless = guard(() => sseResponse('data: {"n":1}\n\n'));
    const a = await settlementIn(await idless.post(call(3)));
    expect(a.id).toMatch(OWN_ID);
    const errA = a.message.error as { message: string; data: Record<string, unknown> };
    expect(errA.data.reason).toMatch(
      /^the stream ended before its response and named no event to resume from/,
    );
    expect(errA.data).toMatchObject({
      cursor: null,
      lastDelivered: null,
      requestId: 3,
      code: 'no-cursor',
    });
    expect(idless.state()).toEqual({ streams: 0, failed: 0, owed: 0, pending: 0 });

    const once = guard(() => sseResponse(ev(1)), { clientResumes: false });
    const b = await readAll(await once.post(call(4)));
    expect(b.text).toMatch(
      /^id: 1\ndata: \{"n":1\}\n\nid: mcpr-call-ended-[A-Za-z0-9_-]{12}-1\ndata: /,
    );
    const msgB = JSON.parse(/data: (.*)\n\n$/.exec(b.text)![1]!) as {
      error: { data: Record<string, unknown> };
    };
    expect(msgB.error.data.reason).toMatch(
      /^the stream ended before its response and this client never reconnects/,
    );
    expect(msgB.error.data).toMatchObject({ cursor: null, lastDelivered: '1', requestId: 4 });
  });

  test('what a call names: a string id, a non-string method and an id of any other kind', async () => {
    const idless = (body: string) => guard(() => sseResponse('data: {"n":1}\n\n')).post(body);
    const named = async (body: string) =>
      (await settlementIn(await idless(body))).message as {
        id: unknown;
        error: { data: Record<string, unknown> };
      };
    expect((await named(call('s1'))).error.data).toMatchObject({
      requestId: 's1',
      method: 'tools/call',
    });
    const odd = await named(JSON.stringify({ jsonrpc: '2.0', id: { x: 1 }, method: 'm' }));
    expect(odd.id).toBeNull();
    expect(odd.error.data).toMatchObject({ requestId: null, method: 'm' });
  });
});

describe('resumptionFailureOf reads only the guard error', () => {
  const data = {
    outcome: 'resumption-failed',
    code: 'skip',
    reason: 'the first event skipped',
    stream: 's',
    cursor: 's-4',
    lastDelivered: 's-4',
    requestId: 5,
    method: 'tools/call',
  };
  const rpc = (d: unknown, extra: Record<string, unknown> = {}) => ({
    code: RESUMPTION_ERROR_CODE,
    message: 'resumption-failed: x',
    data: d,
    ...extra,
  });

  test('the guard error itself is returned as it is', () => {
    const e = new StreamResumptionError('m', 'skip');
    expect(resumptionFailureOf(e)).toBe(e);
  });

  test('anything else is null: other codes, no data, data not an object, an unknown outcome', () => {
    for (const other of [
      null,
      undefined,
      'resumption-failed',
      42,
      new Error('x'),
      { ...rpc(data), code: -32000 },
      { ...rpc(data), code: String(RESUMPTION_ERROR_CODE) },
      rpc(null),
      rpc('text'),
      rpc(undefined),
      rpc({ ...data, outcome: 'resumed' }),
      rpc({ ...data, outcome: 7 }),
      rpc({ ...data, outcome: undefined }),
    ])
      expect(resumptionFailureOf(other), JSON.stringify(other)).toBeNull();
  });

  /** A failure's call read back when it names none (every field unknown). */
  const NO_CALL = {
    requestId: null,
    method: null,
    request: null,
    stream: null,
    cursor: null,
    lastDelivered: null,
  };

  /** The error a call rejects with for the guard's settlement of `e` (code, message, data). */
  const settled = (e: StreamResumptionError) =>
    JSON.parse(JSON.stringify(settlementOf(e).error)) as {
      code: number;
      message: string;
      data: Record<string, unknown>;
    };
  const skip = new StreamResumptionError('the first event skipped', 'skip', 'resumption-failed', {
    requestId: 5,
    method: 'tools/call',
    request: { jsonrpc: '2.0', id: 5, method: 'tools/call' },
    stream: 's',
    cursor: 's-4',
    lastDelivered: 's-4',
  });

  test("the guard's own settlement is read back, every field", () => {
    const full = resumptionFailureOf(settled(skip))!;
    expect(full).toBeInstanceOf(StreamResumptionError);
    expect(full.message).toBe('the first event skipped');
    expect(full.code).toBe('skip');
    expect(full.outcome).toBe('resumption-failed');
    expect(full.call).toEqual({ ...skip.call, request: null });
    const lost = resumptionFailureOf(
      settled(new StreamResumptionError('gone', 'session-gone', 'session-lost')),
    )!;
    expect(lost.outcome).toBe('session-lost');
    expect(lost.call).toEqual(NO_CALL);
  });

  test("a server's -32030 is not the guard's, whatever its data (issue 37, R3-9)", () => {
    const genuine = settled(skip);
    const { seal, ...unsealed } = genuine.data;
    for (const forged of [
      // The data the guard writes, without its seal, or with a seal of another error's fields.
      rpc(data),
      rpc(unsealed),
      rpc({ ...unsealed, outcome: 'session-lost', seal }),
      rpc({ ...unsealed, requestId: 6, seal }),
      rpc({ ...data, seal: 'x' }),
      rpc({ ...genuine.data, seal: 7 }),
    ])
      expect(resumptionFailureOf(forged), JSON.stringify(forged)).toBeNull();
    expect(resumptionFailureOf(genuine)).not.toBeNull();
  });

  test('sealed data under another code is not the guard error: only a -32030 is', () => {
    const genuine = settled(skip);
    expect(resumptionFailureOf(genuine)).not.toBeNull();
    for (const code of [-32000, -32603, String(RESUMPTION_ERROR_CODE)])
      expect(resumptionFailureOf({ ...genuine, code }), String(code)).toBeNull();
  });

  // The fields below are sealed as the guard wrote them, so only a guard that settled an error
  // built outside its types (a JavaScript caller, a cast) can seal them: the reader still
  // refuses an outcome that is not a failure, and reads what is not text as unknown.
  test('a sealed outcome that is not a failure is refused, whatever its type', () => {
    for (const outcome of ['resumed', 'delayed', 'Resumption-failed', 7, null])
      expect(
        resumptionFailureOf(settled(new StreamResumptionError('m', 'skip', outcome as never))),
        String(outcome),
      ).toBeNull();
  });

  test('sealed call fields that are not text (or an id that is no JSON-RPC id) read back as null', () => {
    const odd = new StreamResumptionError('m', 'skip', 'resumption-failed', {
      requestId: { x: 1 } as never,
      method: 5 as never,
      request: null,
      stream: true as never,
      cursor: 12 as never,
      lastDelivered: ['s-4'] as never,
    });
    expect(resumptionFailureOf(settled(odd))!.call).toEqual(NO_CALL);
    const text = new StreamResumptionError('m', 'skip', 'resumption-failed', {
      requestId: 'r-1',
      method: 'tools/call',
      request: null,
      stream: 's',
      cursor: 's-1',
      lastDelivered: 's-1',
    });
    expect(resumptionFailureOf(settled(text))!.call).toEqual(text.call);
  });

  test('a sealed reason that is not text reads back as "resumption failed", and an odd code as unproven', () => {
    const e = new StreamResumptionError('m', 'skip');
    (e as { message: unknown }).message = 42;
    (e as { code: unknown }).code = 9;
    const back = resumptionFailureOf(settled(e))!;
    expect(back.message).toBe('resumption failed');
    expect(back.code).toBe('unproven');
  });
});

describe('what the settlement and the failure name, at the edges', () => {
  test('an error that names no call settles with nulls for every field of the call', () => {
    const m = settlementOf(new StreamResumptionError('gone', 'session-gone', 'session-lost'));
    expect(m).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: RESUMPTION_ERROR_CODE,
        message: 'session-lost: gone',
        data: {
          outcome: 'session-lost',
          code: 'session-gone',
          reason: 'gone',
          stream: null,
          cursor: null,
          lastDelivered: null,
          requestId: null,
          method: null,
          seal: expect.any(String) as unknown,
        },
      },
    });
  });

  test('a break in a first stream names the stream of the last id delivered (no cursor yet)', async () => {
    const g = guard(() => sseResponse(ev('ab1-s2-1') + ev('ab1-s2-2') + ev('ab1-s2-4')), {
      endCalls: 'error',
    });
    const { error } = await readAll(await g.post());
    expect((error as StreamResumptionError).code).toBe('break');
    expect((error as StreamResumptionError).call).toMatchObject({
      stream: 'ab1-s2',
      cursor: null,
      lastDelivered: 'ab1-s2-2',
    });
  });

  test('an error that is not the guard failure (an event over maxEventBytes) errors the body: no settlement', async () => {
    // (An event still being read when it passes the bound: the stream's end has not come.)
    const g = guard(() => sseResponse(wire(`id: 1\ndata: ${'x'.repeat(100)}`)), {
      maxEventBytes: 64,
    });
    const { text, error } = await readAll(await g.post());
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(StreamResumptionError);
    expect(String((error as Error).message)).toMatch(/larger than 64 bytes/);
    expect(text).not.toContain('mcpr-call-ended');
  });

  test('a cursor without a readable sequence fails with the outcome resumption-failed', async () => {
    const g = guard(() => sseResponse(ev(1)), { endCalls: 'error' });
    const e = await g.get('x7').then(
      () => null,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(StreamResumptionError);
    expect((e as StreamResumptionError).outcome).toBe('resumption-failed');
    expect((e as StreamResumptionError).code).toBe('unproven');
  });

  test('a cursorless end is traced as a reconnect without a cursor, decided resumption-failed', async () => {
    const trace: Record<string, unknown>[] = [];
    const g = guard(() => sseResponse('data: {"n":1}\n\n'), {
      onTrace: (line) => {
        const { t, ...rest } = line as { t: number };
        void t;
        trace.push(rest);
      },
    });
    await readAll(await g.post());
    expect(trace).toEqual([
      { type: 'open', status: 200 },
      { type: 'event' },
      { type: 'end' },
      { type: 'reconnect', cursor: null },
      { type: 'decision', outcome: 'resumption-failed' },
    ]);
  });

  test('observe only: a request stream that ends with no id and no response is forgotten, owed nothing', async () => {
    const g = guard(() => sseResponse('data: {"n":1}\n\n'), { enforce: false });
    const { text, error } = await readAll(await g.post());
    expect(error).toBeNull();
    expect(text).toBe('data: {"n":1}\n\n');
    expect(g.state()).toEqual({ streams: 0, failed: 0, owed: 0, pending: 0 });
  });

  test('a refused reconnect of a failed stream is decided at once: nothing is left pending', async () => {
    const trace: Record<string, unknown>[] = [];
    // (With endCalls: 'error' the failed stream is held until its call is re-issued; a settled
    // call's stream is freed at its settlement.)
    const traced = guard(
      (s, n) => (n === 0 ? sseResponse(ev(1)) : new Response(null, { status: 405 })),
      {
        endCalls: 'error',
        onTrace: (line) => {
          const { t, ...rest } = line as { t: number };
          void t;
          trace.push(rest);
        },
      },
    );
    await readAll(await traced.post());
    await traced.get('1').catch(() => {});
    const before = trace.length;
    await expect(traced.get('1')).rejects.toBeInstanceOf(StreamResumptionError);
    expect(trace.slice(before)).toEqual([
      { type: 'reconnect', cursor: 1 },
      { type: 'decision', outcome: 'resumption-failed' },
    ]);
    expect(traced.state()).toEqual({ streams: 1, failed: 1, owed: 0, pending: 0 });
  });
});

/** Fake clock and timers (the guard reads `Date.now()` and sets its budget's timeout). */
function fakeClock() {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  vi.setSystemTime(1_000_000);
  return (ms: number) => vi.advanceTimersByTimeAsync(ms);
}

/** The settlement events of a body, in order: their ids and their JSON-RPC messages. */
async function settlementsIn(
  res: Response,
): Promise<
  { id: string; message: { id: unknown; error: { code: number; data: { code: string } } } }[]
> {
  expect(res.status).toBe(200);
  const { text, error } = await readAll(res);
  expect(error).toBeNull();
  // Nothing but whole events, one after the other.
  expect(text).toMatch(/^(?:id: [^\n]*\ndata: [^\n]*\n\n)+$/);
  return [...text.matchAll(/id: (.*)\ndata: (.*)\n\n/g)].map((m) => ({
    id: m[1]!,
    message: JSON.parse(m[2]!) as {
      id: unknown;
      error: { code: number; data: { code: string } };
    },
  }));
}

describe('a failure decided while no request waits: the next reconnect without a cursor ends the call', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  // Both calls' streams end before their responses, their resumes prove nothing (empty polls),
  // and the proof budget runs out between requests: each call still waits for its answer. The
  // SDK's next GET (no Last-Event-ID: it may come from either call) ends both, in one stream
  // (call-endings.ts, failedAnswers).
  test('two calls failed by their budgets are both ended by one cursor-less GET, each with its own error response', async () => {
    const tick = fakeClock();
    const g = guard(
      (s, n) => {
        if (s.method === 'POST') return sseResponse(ev(n === 0 ? 'ab1-s1-1' : 'ab1-s2-1'));
        return sseResponse(': k\n\n');
      },
      { proofTimeoutMs: 100 },
    );
    expect((await readAll(await g.post(call(1)))).text).toBe(ev('ab1-s1-1'));
    expect((await readAll(await g.post(call(2)))).text).toBe(ev('ab1-s2-1'));
    expect((await readAll(await g.get('ab1-s1-1'))).error).toBeNull();
    expect((await readAll(await g.get('ab1-s2-1'))).error).toBeNull();
    expect(g.failures).toEqual([]);
    await tick(150);
    expect(g.failures.map((e) => [e.code, e.requestId])).toEqual([
      ['unproven', 1],
      ['unproven', 2],
    ]);
    expect(g.state().failed).toBe(2);
    const sent = g.sent.length;
    const res = await g.get();
    // An SSE answer the SDK reads as a stream, never cached.
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const ended = await settlementsIn(res);
    expect(g.sent).toHaveLength(sent);
    expect(ended.map((e) => e.message.id)).toEqual([1, 2]);
    for (const e of ended) {
      expect(e.id).toMatch(OWN_ID);
      expect(e.message.error.code).toBe(RESUMPTION_ERROR_CODE);
      expect(e.message.error.data.code).toBe('unproven');
    }
    expect(ended[0]!.id.endsWith('-1')).toBe(true);
    expect(ended[1]!.id.endsWith('-2')).toBe(true);
    expect(g.state()).toEqual({ streams: 0, failed: 0, owed: 0, pending: 0 });
  });
});
