/**
 * How a failed stream ends its call (`endCalls: 'respond'`, the default), network-free: the
 * guard answers the SDK with a JSON-RPC error response for the pending request's id, once, and
 * every later reconnect of that call with a 405 sent by nobody. The loopback suite
 * (call-settles.test.ts) shows the same through real SDK clients; this one, a scripted `fetch`
 * and milliseconds a test, is what `npm run mutation:runtime` runs against guard-core.ts and
 * call-settlement.ts: it reads the settlement word for word, and what `resumptionFailureOf`
 * makes of every shape of error a call can reject with.
 */
import { describe, expect, test } from 'vitest';
import {
  continuityGuard,
  inspectGuard,
  RESUMPTION_ERROR_CODE,
  resumptionFailureOf,
  StreamResumptionError,
  type ContinuityGuardOptions,
  markReissue,
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
    expect(id).toBe('mcpr-call-ended-1');
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
        },
      },
    });
    expect(RESUMPTION_ERROR_CODE).toBe(-32030);
    // The SDK reconnects after that event with its id: answered 405 by the guard, nothing sent.
    const sent = g.sent.length;
    const again = await g.get(id);
    expect(again.status).toBe(405);
    expect(again.statusText).toBe('call already ended by continuityGuard');
    expect(await again.text()).toBe('');
    // A reconnect naming the stream's own cursor again: the call was ended once, so a 405 too.
    const third = await g.get('ab1-s2-1');
    expect(third.status).toBe(405);
    expect(g.sent).toHaveLength(sent);
    expect(g.failures).toHaveLength(1);
    // Re-issuing the call (marked as its re-issue) frees its stream.
    expect(g.state()).toMatchObject({ streams: 1, failed: 1 });
    await markReissue(g.failures[0]!, () => g.post(call(8))).catch(() => {});
    expect(g.state()).toMatchObject({ failed: 0 });
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
    expect(a.id).toBe('mcpr-call-ended-1');
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
    expect(b.text.startsWith('id: 1\ndata: {"n":1}\n\nid: mcpr-call-ended-1\ndata: ')).toBe(true);
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

  test('every field is read back; a field of the wrong type is null, or a fallback for the words', () => {
    const full = resumptionFailureOf(rpc(data))!;
    expect(full.message).toBe('the first event skipped');
    expect(full.code).toBe('skip');
    expect(full.outcome).toBe('resumption-failed');
    expect(full.call).toEqual({
      requestId: 5,
      method: 'tools/call',
      request: null,
      stream: 's',
      cursor: 's-4',
      lastDelivered: 's-4',
    });
    const lost = resumptionFailureOf(rpc({ outcome: 'session-lost' }))!;
    expect(lost.outcome).toBe('session-lost');
    expect(lost.code).toBe('unproven');
    expect(lost.message).toBe('resumption-failed: x');
    expect(lost.call).toEqual({
      requestId: null,
      method: null,
      request: null,
      stream: null,
      cursor: null,
      lastDelivered: null,
    });
    const wrong = resumptionFailureOf(
      rpc(
        {
          outcome: 'resumption-failed',
          code: 3,
          reason: 4,
          stream: 1,
          cursor: 2,
          lastDelivered: {},
          requestId: true,
          method: 9,
        },
        { message: undefined },
      ),
    )!;
    expect(wrong.message).toBe('resumption failed');
    expect(wrong.code).toBe('unproven');
    expect(wrong.call).toMatchObject({
      requestId: null,
      method: null,
      stream: null,
      cursor: null,
      lastDelivered: null,
    });
    expect(
      resumptionFailureOf(rpc({ outcome: 'session-lost', requestId: 'r' }))!.call!.requestId,
    ).toBe('r');
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
    const traced = guard(
      (s, n) => (n === 0 ? sseResponse(ev(1)) : new Response(null, { status: 405 })),
      {
        onTrace: (line) => {
          const { t, ...rest } = line as { t: number };
          void t;
          trace.push(rest);
        },
      },
    );
    await readAll(await traced.post());
    await readAll(await traced.get('1'));
    const before = trace.length;
    expect((await traced.get('1')).status).toBe(405);
    expect(trace.slice(before)).toEqual([
      { type: 'reconnect', cursor: 1 },
      { type: 'decision', outcome: 'resumption-failed' },
    ]);
    expect(traced.state()).toEqual({ streams: 1, failed: 1, owed: 0, pending: 0 });
  });
});
