/**
 * `taskStreamHandler` over a log that answers through a promise (a `TaskStreamSource`, as the
 * Redis task log is), in process and with no Redis: what the handler sends for an opening that
 * resolves, rejects, throws a non-Error, or never answers within `openTimeoutMs`; that a late
 * opening's events are closed (nobody reads them); that `openTimeoutMs: Infinity` waits as
 * long as the log takes; and that a thenable counts as a promise. The cross-instance tests over
 * a real redis-server are in properties/redis/task-stream-across-instances.test.ts; these are
 * the fast ones the task mutation suite runs.
 */
import { afterEach, describe, expect, test, vi } from 'vitest';
import type { TaskEvent, TaskStreamOpening } from '../../src/runtime/task-event-log.js';
import { taskStreamHandler, type TaskStreamSource } from '../../src/runtime/index.js';

const call = (params: unknown = { taskId: 't' }) =>
  new Request('http://127.0.0.1/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tasks/stream', params }),
  });

/** The SSE data lines of a body, parsed. */
async function messages(res: Response): Promise<unknown[]> {
  const text = await res.text();
  return text
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice('data: '.length)) as unknown);
}

/** An opening of `seqs`, which records whether its events were closed (`return` called). */
function opening(seqs: number[]): { opening: TaskStreamOpening; closed: () => boolean } {
  let closed = false;
  async function* gen(): AsyncGenerator<TaskEvent, void, undefined> {
    for (const seq of seqs) yield { taskId: 't', seq, type: 'x', payload: {} } as TaskEvent;
  }
  const events = gen();
  const close = events.return.bind(events);
  events.return = (v) => {
    closed = true;
    return close(v);
  };
  return { opening: { ok: true, events }, closed: () => closed };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('taskStreamHandler over a log that answers through a promise', () => {
  test('a resolved opening is served as a synchronous one is: its events, then the result', async () => {
    const o = opening([0, 1]);
    const source: TaskStreamSource = { openStream: () => Promise.resolve(o.opening) };
    const res = await taskStreamHandler(source)(call());
    expect(res.status).toBe(200);
    const got = await messages(res);
    expect(got.map((m) => (m as { params?: { seq?: number } }).params?.seq)).toEqual([
      0,
      1,
      undefined,
    ]);
    expect(got.at(-1)).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
  });

  test('an error opening through a promise is its JSON-RPC error', async () => {
    const source: TaskStreamSource = {
      openStream: () =>
        Promise.resolve({ ok: false, error: { code: -32602, message: 'unknown task' } }),
    };
    const res = await taskStreamHandler(source)(call());
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32602, message: 'unknown task' },
    });
  });

  test('a rejected opening, or one that throws a non-Error, is one -32603 naming the log', async () => {
    const rejecting: TaskStreamSource = {
      openStream: () => Promise.reject(new Error('connection refused')),
    };
    expect(await (await taskStreamHandler(rejecting)(call())).json()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: -32603,
        message: 'tasks/stream: the task event log failed: connection refused',
      },
    });
    const throwing: TaskStreamSource = {
      openStream: () => {
        throw 'down';
      },
    };
    expect(await (await taskStreamHandler(throwing)(call())).json()).toMatchObject({
      error: { code: -32603, message: 'tasks/stream: the task event log failed: down' },
    });
  });

  test('an opening that does not answer within openTimeoutMs is refused at the bound; when it comes later its events are closed', async () => {
    vi.useFakeTimers();
    const o = opening([0]);
    let answer!: (x: TaskStreamOpening) => void;
    const source: TaskStreamSource = {
      openStream: () => new Promise<TaskStreamOpening>((r) => (answer = r)),
    };
    const pending = taskStreamHandler(source, { openTimeoutMs: 50 })(call());
    await vi.advanceTimersByTimeAsync(49);
    let settled = false;
    void pending.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await (await pending).json()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: -32603,
        message:
          'tasks/stream: the task event log failed: the task event log did not answer within 50 ms',
      },
    });
    answer(o.opening);
    await vi.advanceTimersByTimeAsync(0);
    expect(o.closed()).toBe(true);
  });

  test('the default bound is 10 s', async () => {
    vi.useFakeTimers();
    const source: TaskStreamSource = { openStream: () => new Promise<TaskStreamOpening>(() => {}) };
    const pending = taskStreamHandler(source)(call());
    let settled = false;
    void pending.then(() => (settled = true));
    await vi.advanceTimersByTimeAsync(9_999);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toBe(true);
    expect(
      ((await (await pending).json()) as { error: { message: string } }).error.message,
    ).toMatch(/did not answer within 10000 ms$/);
  });

  test('an opening within the bound clears its timer', async () => {
    vi.useFakeTimers();
    const quick = opening([4]);
    const fast: TaskStreamSource = { openStream: () => Promise.resolve(quick.opening) };
    const res = await taskStreamHandler(fast, { openTimeoutMs: 50 })(call());
    expect(res.status).toBe(200);
    expect(vi.getTimerCount()).toBe(0);
    expect(quick.closed()).toBe(false);
  });

  test('openTimeoutMs: Infinity waits as long as the log takes (a timer of that length would fire at once)', async () => {
    // Real timers: Node runs a timer beyond its range after 1 ms, so a bound of Infinity given
    // to setTimeout would refuse this opening at once.
    const o = opening([3]);
    const slow: TaskStreamSource = {
      openStream: () => new Promise<TaskStreamOpening>((r) => setTimeout(() => r(o.opening), 30)),
    };
    const res = await taskStreamHandler(slow, { openTimeoutMs: Infinity })(call());
    expect(res.status).toBe(200);
    expect((await messages(res)).length).toBe(2);
  });

  test('an error opening that comes after the bound is dropped quietly (no events to close)', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => void unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      const late: TaskStreamSource = {
        openStream: () =>
          new Promise<TaskStreamOpening>((r) =>
            setTimeout(() => r({ ok: false, error: { code: -32602, message: 'late' } }), 30),
          ),
      };
      const res = await taskStreamHandler(late, { openTimeoutMs: 5 })(call());
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(
        /did not answer within 5 ms$/,
      );
      await new Promise((r) => setTimeout(r, 60));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  test('a thenable that is not a Promise is awaited as one', async () => {
    const o = opening([0]);
    const thenable: PromiseLike<TaskStreamOpening> = {
      then: (ok) => Promise.resolve(o.opening).then(ok),
    };
    const res = await taskStreamHandler({ openStream: () => thenable })(call());
    expect(res.status).toBe(200);
    expect((await messages(res)).length).toBe(2);
  });
});
