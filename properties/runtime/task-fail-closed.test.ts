/**
 * The task runtime fails closed and bounded under hostile input (issue 28), and a failed task
 * stream ends with a StreamResumptionError that names the task and its `after` (issue 31):
 * - one endless SSE event, and a huge body that is not an event stream, end with a
 *   TaskStreamLimitError (bounded memory), never a heap exhaustion;
 * - a redirect is never followed (the other origin gets no request) and fails a resume;
 * - valid SSE events under a 500 or a 404 are never delivered, and fail a resume;
 * - taskStreamHandler looks methods up as own properties (`constructor` is no method);
 * - `append(final); complete()` in one tick while a reader waits live: the reader gets the final
 *   events (a log that makes that mistake fails the same test);
 * - a dropped duplicate below the cursor never moves the cursor back (the guard mutant
 *   `cursor-follows-duplicates` fails the same test);
 * - a connection that breaks ends a live stream (call again) or fails a resume with the task's
 *   words, never a raw `TypeError: terminated`;
 * - SEP-2694's recovery after `events_gone` (docs/runtime.md) works through the guard.
 */
import { describe, expect, test } from 'vitest';
import {
  fetchTaskStream,
  StreamResumptionError,
  TaskEventLog,
  TaskStreamLimitError,
  TaskStreamResumptionError,
  taskStreamGuard,
  taskStreamHandler,
  type TaskEvent,
  type TaskStreamOpening,
  type TaskStreamItem,
  type TaskTraceLine,
} from '../../src/runtime/index.js';
import { mutantTaskGuard } from '../../src/runtime-mutants/task-guard-mutants.js';
import type { TaskStreamGuard } from '../../src/runtime/task-stream-guard.js';
import { serveFetch, type FetchHost } from '../../src/conformance/fetch-host.js';
import { checkTrace } from '../../src/trace/check.js';

const TASK = 'task-fc';
const encoder = new TextEncoder();

const note = (seq: number, taskId = TASK) => ({
  jsonrpc: '2.0',
  method: 'notifications/tasks/event',
  params: { seq, taskId, type: 'com.example.step', payload: { n: seq } },
});
const sseOf = (messages: unknown[]) =>
  messages.map((m) => `data: ${JSON.stringify(m)}\n\n`).join('');

async function withHost<T>(
  handler: (request: Request) => Promise<Response>,
  run: (host: FetchHost) => Promise<T>,
): Promise<T> {
  const host = await serveFetch(handler);
  try {
    return await run(host);
  } finally {
    await host.close();
  }
}

/** Everything a fetchTaskStream call yields, or the error it ends with. */
async function drain(items: AsyncIterable<TaskStreamItem>) {
  const got: TaskStreamItem[] = [];
  try {
    for await (const item of items) got.push(item);
    return { got, error: null as unknown };
  } catch (e) {
    return { got, error: e };
  }
}

/** A guard that already handed on seq 0..last of TASK (a scripted first stream). */
async function guardAfter(last: number, guard: TaskStreamGuard = taskStreamGuard()) {
  const first = (async function* () {
    for (let seq = 0; seq <= last; seq++) yield { status: 200, message: note(seq) };
    yield { status: 200, message: { jsonrpc: '2.0', id: 1, result: {} } };
  })();
  for await (const e of guard.follow({ taskId: TASK }, first)) void e;
  expect(guard.cursor(TASK)).toBe(last);
  return guard;
}

/** Follows one resume of TASK over HTTP; the events handed on and the error it ended with. */
async function resume(guard: TaskStreamGuard, url: string) {
  const handed: number[] = [];
  try {
    for await (const e of guard.stream(fetch, url, TASK)) handed.push(e.seq);
    return { handed, error: null as unknown };
  } catch (e) {
    return { handed, error: e };
  }
}

describe('fetchTaskStream is bounded', () => {
  test('one endless SSE event ends with TaskStreamLimitError near maxEventBytes, naming the task and after', async () => {
    let sent = 0;
    await withHost(
      async () =>
        new Response(
          new ReadableStream({
            pull(c) {
              // `data: xxxx…` with no end of line, 64 KiB a chunk, up to 64 MiB (a safety net).
              if (sent > 64 << 20) return c.close();
              c.enqueue(encoder.encode(sent === 0 ? 'data: ' : 'x'.repeat(65536)));
              sent += 65536;
            },
          }),
          { headers: { 'content-type': 'text/event-stream' } },
        ),
      async (host) => {
        const r = await drain(
          fetchTaskStream(fetch, host.url, { taskId: TASK, after: 4 }, { maxEventBytes: 1 << 20 }),
        );
        expect(r.got).toEqual([]);
        expect(r.error).toBeInstanceOf(TaskStreamLimitError);
        const e = r.error as TaskStreamLimitError;
        expect([e.limit, e.taskId, e.after]).toEqual(['maxEventBytes', TASK, 4]);
        expect(e.bytes).toBeGreaterThan(1 << 20);
        expect(e.bytes).toBeLessThan((1 << 20) + (1 << 18));
        expect(e.message).toMatch(/^task "task-fc", tasks\/stream with after 4: one SSE event/);
      },
    );
  });

  test('events and keepalives of any number never reach the event bound', async () => {
    const messages = Array.from({ length: 300 }, (_, i) => note(i));
    const text = messages.map((m) => `: keepalive\n\ndata: ${JSON.stringify(m)}\n\n`).join('');
    await withHost(
      async () => new Response(text, { headers: { 'content-type': 'text/event-stream' } }),
      async (host) => {
        const r = await drain(
          fetchTaskStream(fetch, host.url, { taskId: TASK }, { maxEventBytes: 512 }),
        );
        expect(r.error).toBeNull();
        expect(r.got).toHaveLength(300);
      },
    );
  });

  test('a body that is not an event stream ends with TaskStreamLimitError past maxBodyBytes', async () => {
    let sent = 0;
    await withHost(
      async () =>
        new Response(
          new ReadableStream({
            pull(c) {
              if (sent > 64 << 20) return c.close();
              c.enqueue(encoder.encode('['.repeat(65536)));
              sent += 65536;
            },
          }),
          { headers: { 'content-type': 'application/json' } },
        ),
      async (host) => {
        const r = await drain(
          fetchTaskStream(fetch, host.url, { taskId: TASK }, { maxBodyBytes: 1 << 20 }),
        );
        expect(r.error).toBeInstanceOf(TaskStreamLimitError);
        expect((r.error as TaskStreamLimitError).limit).toBe('maxBodyBytes');
        expect((r.error as TaskStreamLimitError).after).toBeNull();
        expect((r.error as TaskStreamLimitError).bytes).toBeLessThan((1 << 20) + (1 << 18));
      },
    );
  });

  test('through the guard, the limit ends the stream with the same error, and no event', async () => {
    await withHost(
      async () =>
        new Response(`data: ${'x'.repeat(3 << 20)}`, {
          headers: { 'content-type': 'text/event-stream' },
        }),
      async (host) => {
        const guard = await guardAfter(2);
        const r = await resume(guard, host.url);
        expect(r.handed).toEqual([]);
        expect(r.error).toBeInstanceOf(StreamResumptionError);
        expect((r.error as Error).message).toMatch(/task "task-fc", tasks\/stream with after 2/);
      },
    );
  });
});

describe('fetchTaskStream never follows a redirect, and never takes events under a refusal', () => {
  for (const status of [301, 302, 303, 307, 308]) {
    test(`${status}: the other origin gets no request; the resume fails`, async () => {
      let elsewhere = 0;
      await withHost(
        async () => {
          elsewhere++;
          return new Response(sseOf([note(3), note(4)]), {
            headers: { 'content-type': 'text/event-stream' },
          });
        },
        async (other) =>
          withHost(
            async () => new Response(null, { status, headers: { location: other.url } }),
            async (host) => {
              const r = await drain(
                fetchTaskStream(
                  fetch,
                  host.url,
                  { taskId: TASK, after: 2 },
                  {
                    headers: { 'mcp-session-id': 'secret-session' },
                  },
                ),
              );
              expect(r).toEqual({ got: [{ status }], error: null });
              const guard = await guardAfter(2);
              const g = await resume(guard, host.url);
              expect(g.handed).toEqual([]);
              expect(g.error).toBeInstanceOf(StreamResumptionError);
              expect((g.error as StreamResumptionError).outcome).toBe('resumption-failed');
              expect((g.error as Error).message).toMatch(
                new RegExp(`task "task-fc", tasks/stream with after 2: .*HTTP status ${status}`),
              );
              expect(elsewhere).toBe(0);
            },
          ),
      );
    });
  }

  for (const status of [500, 404]) {
    test(`valid SSE events under a ${status} are not delivered, and the resume is no resume`, async () => {
      await withHost(
        async () =>
          new Response(sseOf([note(3), note(4), { jsonrpc: '2.0', id: 1, result: {} }]), {
            status,
            headers: { 'content-type': 'text/event-stream' },
          }),
        async (host) => {
          const r = await drain(fetchTaskStream(fetch, host.url, { taskId: TASK, after: 2 }));
          expect(r).toEqual({ got: [{ status }], error: null });
          const guard = await guardAfter(2);
          const g = await resume(guard, host.url);
          expect(g.handed).toEqual([]);
          expect((g.error as StreamResumptionError).outcome).toBe(
            status === 404 ? 'session-lost' : 'resumption-failed',
          );
        },
      );
    });
  }

  test('an events_gone carried in an event stream under a 410 is still read (classified on the body)', async () => {
    const gone = {
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32010, data: { reason: 'events_gone', taskId: TASK, earliestSeq: 9 } },
    };
    await withHost(
      async () =>
        new Response(sseOf([note(3), gone]), {
          status: 410,
          headers: { 'content-type': 'text/event-stream' },
        }),
      async (host) => {
        const r = await drain(fetchTaskStream(fetch, host.url, { taskId: TASK, after: 2 }));
        expect(r.got).toEqual([{ status: 410, message: gone }]);
      },
    );
  });
});

describe('taskStreamHandler', () => {
  test('a method name from Object.prototype is no method: -32601, never its params echoed', async () => {
    const handle = taskStreamHandler(new TaskEventLog(), { methods: { 'x/ping': () => ({}) } });
    for (const method of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) {
      const response = await handle(
        new Request('http://127.0.0.1/mcp', {
          method: 'POST',
          body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params: { echo: 'me' } }),
        }),
      );
      const body = (await response.json()) as { error?: { code: number }; result?: unknown };
      expect(body.error?.code, method).toBe(-32601);
      expect(JSON.stringify(body), method).not.toContain('echo');
    }
  });
});

/**
 * A log that makes the first runtime mistake: a live reader woken after the task completed
 * stops at once, and the final events appended in the same tick never reach it.
 */
class StopsOnCompleteLog extends TaskEventLog {
  override openStream(params: unknown, signal?: AbortSignal): TaskStreamOpening {
    const opening = super.openStream(params, signal);
    if (!opening.ok) return opening;
    const taskId = (params as { taskId: string }).taskId;
    const events = opening.events;
    const describe = (id: string) => this.describe(id)!;
    return {
      ok: true,
      events: (async function* () {
        for (;;) {
          const before = describe(taskId).next;
          const next = await events.next();
          if (next.done) return;
          // Woken by a completion: the mistake ends the stream before the final events.
          if (next.value.seq >= before && describe(taskId).done) return;
          yield next.value;
        }
      })(),
    };
  }
}

/** A reader waits live; then the task appends its final events and completes, in one tick. */
async function finalEventsOf(log: TaskEventLog): Promise<{ seqs: number[]; trace: string[] }> {
  const taskId = log.createTask();
  log.append(taskId, 'com.example.step', {});
  const trace: string[] = [];
  const guard = taskStreamGuard({
    onTrace: (l: TaskTraceLine) => void trace.push(JSON.stringify(l)),
  });
  return withHost(taskStreamHandler(log), async (host) => {
    const seqs: number[] = [];
    for await (const e of guard.stream(fetch, host.url, taskId)) {
      seqs.push(e.seq);
      if (e.seq === 0) {
        // The reader now waits live for seq 1: append the last events and complete at once.
        setTimeout(() => {
          log.append(taskId, 'com.example.step', {});
          log.append(taskId, 'com.example.final', {});
          log.complete(taskId);
        }, 20);
      }
    }
    return { seqs, trace };
  });
}

describe('the two task-runtime mistakes', () => {
  test('append(final); complete() in one tick while a reader waits live: the reader gets the final events', async () => {
    const real = await finalEventsOf(new TaskEventLog());
    expect(real.seqs).toEqual([0, 1, 2]);
    const mistaken = await finalEventsOf(new StopsOnCompleteLog());
    // The mistake: the stream ends clean (a result) without the final events.
    expect(mistaken.seqs).toEqual([0]);
  });

  /** Call 1: seq 0..2; call 2 (after 2): a duplicate below the cursor, then the result; call 3. */
  async function duplicateBelowThenResume(guard: TaskStreamGuard) {
    const afters: (number | null)[] = [];
    let calls = 0;
    return withHost(
      async (request) => {
        const body = (await request.json()) as { id: number; params: { after?: number } };
        afters.push(body.params.after ?? null);
        const done = { jsonrpc: '2.0', id: body.id, result: {} };
        const messages = [
          [note(0), note(1), note(2), done],
          [note(1), done],
          [note(3), done],
        ][Math.min(calls++, 2)]!;
        return new Response(sseOf(messages), { headers: { 'content-type': 'text/event-stream' } });
      },
      async (host) => {
        const handed: number[] = [];
        let error: unknown = null;
        try {
          for (let i = 0; i < 3; i++)
            for await (const e of guard.stream(fetch, host.url, TASK)) handed.push(e.seq);
        } catch (e) {
          error = e;
        }
        return { handed, afters, error };
      },
    );
  }

  test('a dropped duplicate below the cursor never moves the cursor back', async () => {
    const real = await duplicateBelowThenResume(taskStreamGuard());
    expect(real).toEqual({ handed: [0, 1, 2, 3], afters: [null, 2, 2], error: null });
    const mutant = await duplicateBelowThenResume(mutantTaskGuard({}, 'cursor-follows-duplicates'));
    // The mistake: the cursor went back to 1, so the third call is no poll of the episode
    // (after 2) but a new resume: the empty poll before it fails as unproven, and seq 3 never
    // comes.
    expect(mutant.afters).toEqual([null, 2]);
    expect(mutant.handed).toEqual([0, 1, 2]);
    expect(mutant.error).toBeInstanceOf(StreamResumptionError);
    expect((mutant.error as StreamResumptionError).code).toBe('unproven');
  });
});

describe('a broken connection ends a task stream in the task’s words', () => {
  /** Sends `messages`, then breaks the connection (the body errors after its headers). */
  const breaksAfter = (messages: unknown[]) => async () =>
    new Response(
      new ReadableStream({
        start(c) {
          c.enqueue(encoder.encode(sseOf(messages)));
          setTimeout(() => c.error(new Error('cut')), 30);
        },
      }),
      { headers: { 'content-type': 'text/event-stream' } },
    );

  test('fetchTaskStream: a TaskStreamResumptionError naming the task and after, never a TypeError', async () => {
    await withHost(breaksAfter([note(3)]), async (host) => {
      const r = await drain(fetchTaskStream(fetch, host.url, { taskId: TASK, after: 2 }));
      expect(r.got).toEqual([{ status: 200, message: note(3) }]);
      expect(r.error).toBeInstanceOf(TaskStreamResumptionError);
      expect(r.error).not.toBeInstanceOf(TypeError);
      expect((r.error as Error).message).toMatch(
        /^task "task-fc", tasks\/stream with after 2: the answer broke before it ended/,
      );
    });
  });

  test('the guard: a live stream that breaks just ends (call again); a resume broken before any answer fails, naming the task and after', async () => {
    await withHost(breaksAfter([note(0), note(1)]), async (host) => {
      const guard = taskStreamGuard();
      const first = await resume(guard, host.url);
      expect(first).toEqual({ handed: [0, 1], error: null });
      expect(guard.cursor(TASK)).toBe(1);
    });
    await withHost(breaksAfter([]), async (host) => {
      const guard = await guardAfter(1);
      const r = await resume(guard, host.url);
      expect(r.error).toBeInstanceOf(StreamResumptionError);
      expect(r.error).not.toBeInstanceOf(TypeError);
      expect((r.error as Error).message).toMatch(
        /^task "task-fc", tasks\/stream with after 1: no answer to tasks\/stream/,
      );
    });
  });
});

describe("SEP-2694's recovery after events_gone, through the guard (docs/runtime.md)", () => {
  test('events_gone fails the resume naming the task and after; recover() resumes from earliestSeq - 1, and the oracle agrees with every decision', async () => {
    const log = new TaskEventLog({ maxEventsPerTask: 4 });
    const taskId = log.createTask();
    for (let i = 0; i < 3; i++) log.append(taskId, 'com.example.step', { i });
    const trace: string[] = [];
    const guard = taskStreamGuard({ onTrace: (l) => void trace.push(JSON.stringify(l)) });
    await withHost(taskStreamHandler(log, { eventsGoneStatus: 410 }), async (host) => {
      const seen: TaskEvent[] = [];
      // Read seq 0..2, then leave while the task runs on.
      for await (const e of guard.stream(fetch, host.url, taskId)) {
        seen.push(e);
        if (e.seq === 2) break;
      }
      for (let i = 3; i < 10; i++) log.append(taskId, 'com.example.step', { i });
      log.complete(taskId);
      const failed = await (async () => {
        for await (const e of guard.stream(fetch, host.url, taskId)) seen.push(e);
      })().catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(StreamResumptionError);
      expect((failed as StreamResumptionError).outcome).toBe('resumption-failed');
      expect((failed as Error).message).toBe(
        `task ${JSON.stringify(taskId)}, tasks/stream with after 2: after 2 below earliestSeq 6 (events_gone); seq 3..5 are lost`,
      );
      // The documented recovery: accept the gap, resume from earliestSeq - 1.
      expect(guard.recover(taskId)).toBe(5);
      for await (const e of guard.stream(fetch, host.url, taskId)) seen.push(e);
      expect(seen.map((e) => e.seq)).toEqual([0, 1, 2, 6, 7, 8, 9]);
    });
    const report = await checkTrace(trace);
    expect(report.reconnects.map((r) => [r.cursor, r.expected, r.verdict])).toEqual([
      [2, 'resumption-failed', 'ok'],
      [5, 'resumed', 'ok'],
    ]);
    expect([report.cursorAhead, report.breaks, report.exitCode]).toEqual([[], [], 0]);
  });

  test('recover() refuses a task whose stream did not fail with events_gone', async () => {
    const guard = await guardAfter(1);
    expect(() => guard.recover(TASK)).toThrow(/no events_gone to recover from/);
  });
});
