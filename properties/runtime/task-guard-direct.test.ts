/**
 * taskStreamGuard driven directly, without a network: each call's answer is a scripted
 * sequence of received items (`follow(params, answer)`, the guard's public entry), and fake
 * timers stand in for the clock where the proof budget or the idle bound is at stake. Each test
 * asserts what a user relies on: the events handed on, the error raised (its words, code and
 * outcome), the decisions reported and the trace recorded. A property feeds random hostile
 * answers and holds the guard to the oracle (`check --binding mcp-tasks` on its own trace) and
 * to NoSilentGap. These are the tests `npm run mutation:tasks` runs against the guard's
 * decisions (src/runtime/task-guard-runtime.ts), milliseconds each; properties/runtime/
 * task-guard.test.ts shows the same rules over loopback HTTP against a hostile server.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, test, vi } from 'vitest';
import {
  StreamResumptionError,
  TaskGuardCapacityError,
  TaskStreamLimitError,
  TaskStreamResumptionError,
  taskStreamGuard,
  type TaskStreamDecision,
  type TaskStreamGuard,
  type TaskStreamGuardOptions,
  type TaskStreamItem,
  type TaskTraceLine,
} from '../../src/runtime/index.js';
import {
  mutantTaskGuard,
  type TaskGuardMutantName,
} from '../../src/runtime-mutants/task-guard-mutants.js';
import { clientMachine } from '../../model/client-machine.js';
import { MACHINE_MUTANTS } from '../../model/mutants/machine-mutants.js';
import { checkTrace } from '../../src/trace/check.js';
import { announceSeed, runs } from '../support/seed.js';

const seed = announceSeed('properties/runtime/task-guard-direct.test.ts');

const T = 'task-1';
const event = (seq: unknown, taskId: unknown = T): TaskStreamItem => ({
  status: 200,
  message: {
    jsonrpc: '2.0',
    method: 'notifications/tasks/event',
    params: { seq, taskId, type: 'com.example.step', payload: { n: seq } },
  },
});
const RESULT: TaskStreamItem = { status: 200, message: { jsonrpc: '2.0', id: 1, result: {} } };
const gone = (earliestSeq: number, status = 200): TaskStreamItem => ({
  status,
  message: {
    jsonrpc: '2.0',
    id: 1,
    error: {
      code: -32010,
      message: 'Task events are no longer available',
      data: { reason: 'events_gone', taskId: T, earliestSeq },
    },
  },
});
const bare = (status: number): TaskStreamItem => ({ status });
/** A notification that is no task event: it proves nothing, and is not recorded. */
const PROGRESS: TaskStreamItem = {
  status: 200,
  message: { jsonrpc: '2.0', method: 'notifications/progress', params: {} },
};

/** An answer of `list`, then its end (or `end` thrown); records whether it was closed. */
function answer(list: TaskStreamItem[], end?: unknown) {
  const state = { closed: false };
  const iterable: AsyncIterable<TaskStreamItem> = {
    [Symbol.asyncIterator]() {
      let i = 0;
      return {
        next: () => {
          if (i < list.length) return Promise.resolve({ done: false, value: list[i++]! });
          if (end !== undefined) return Promise.reject(end as Error);
          return Promise.resolve({ done: true, value: undefined });
        },
        return: () => {
          state.closed = true;
          return Promise.resolve({ done: true, value: undefined });
        },
      };
    },
  };
  return { iterable, state };
}

/** An answer whose items the test pushes one at a time (a live stream); it never ends itself. */
function live() {
  const queue: TaskStreamItem[] = [];
  let wake: (() => void) | null = null;
  const state = { closed: false };
  const iterable: AsyncIterable<TaskStreamItem> = {
    [Symbol.asyncIterator]() {
      return {
        next: async () => {
          while (queue.length === 0) await new Promise<void>((r) => (wake = r));
          return { done: false, value: queue.shift()! };
        },
        return: () => {
          state.closed = true;
          return Promise.resolve({ done: true, value: undefined });
        },
      };
    },
  };
  const push = (item: TaskStreamItem) => {
    queue.push(item);
    wake?.();
  };
  return { iterable, state, push };
}

/** A guard (or one of its mutants) with everything it reports collected. */
function setup(options: TaskStreamGuardOptions = {}, mutant?: TaskGuardMutantName) {
  const trace: TaskTraceLine[] = [];
  const decisions: TaskStreamDecision[] = [];
  const failures: StreamResumptionError[] = [];
  const o: TaskStreamGuardOptions = {
    onTrace: (l, taskId) => void trace.push({ ...l, of: taskId }),
    onDecision: (d) => void decisions.push(d),
    onFailure: (e) => void failures.push(e),
    ...options,
  };
  const guard: TaskStreamGuard = mutant ? mutantTaskGuard(o, mutant) : taskStreamGuard(o);
  /** Follows one call; returns the seqs handed on and the error it ended with (or null). */
  async function follow(
    after: number | undefined,
    items: AsyncIterable<TaskStreamItem> | TaskStreamItem[],
    taskId = T,
  ) {
    const handed: number[] = [];
    const params = after === undefined ? { taskId } : { taskId, after };
    const a = Array.isArray(items) ? answer(items).iterable : items;
    try {
      for await (const e of guard.follow(params, a)) handed.push(e.seq);
      return { handed, error: null as unknown };
    } catch (e) {
      return { handed, error: e };
    }
  }
  /** The trace as `check` reads it (one task), without the test's `of` field. */
  const lines = (taskId = T) =>
    trace
      .filter((l) => l['of'] === taskId)
      .map(({ of, ...l }) => {
        void of;
        return JSON.stringify(l);
      });
  /** The lines without their times, for exact comparison. */
  const plain = () =>
    trace.map(({ t, of, ...l }) => {
      void t;
      void of;
      return l;
    });
  return { guard, trace, decisions, failures, follow, lines, plain };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('options', () => {
  test('each bound is checked with its name, and the proof budget is recorded', async () => {
    expect(() => taskStreamGuard({ proofTimeoutMs: 0 })).toThrow(
      new RangeError('taskStreamGuard: proofTimeoutMs must be a number >= 1, got 0'),
    );
    expect(() => taskStreamGuard({ idleTimeoutMs: -1 })).toThrow(
      new RangeError('taskStreamGuard: idleTimeoutMs must be a number >= 0, got -1'),
    );
    expect(() => taskStreamGuard({ maxTasks: 0 })).toThrow(
      new RangeError('taskStreamGuard: maxTasks must be a number >= 1, got 0'),
    );
    expect(() =>
      taskStreamGuard({ proofTimeoutMs: 1, idleTimeoutMs: 0, maxTasks: 1 }),
    ).not.toThrow();
    const s = setup();
    await s.follow(undefined, [RESULT]);
    expect(s.plain()[0]).toEqual({ type: 'binding', name: 'mcp-tasks', proofBudget: 10_000 });
    const t = setup({ proofTimeoutMs: 7 });
    await t.follow(undefined, [RESULT]);
    expect(t.plain()[0]).toEqual({ type: 'binding', name: 'mcp-tasks', proofBudget: 7 });
  });

  test('maxTasks bounds the tasks followed; forgetting one makes room', async () => {
    const s = setup({ maxTasks: 1 });
    expect((await s.follow(undefined, [event(0)])).handed).toEqual([0]);
    const refused = await s.follow(undefined, [event(0, 'b')], 'b');
    expect(refused.error).toBeInstanceOf(TaskGuardCapacityError);
    expect((refused.error as TaskGuardCapacityError).maxTasks).toBe(1);
    s.guard.forget(T);
    s.guard.forget('never-seen');
    expect((await s.follow(undefined, [event(0, 'b')], 'b')).handed).toEqual([0]);
    expect(s.guard.cursor('b')).toBe(0);
    expect(s.guard.cursor(T)).toBeUndefined();
  });
});

describe('streams, resumes and what is handed on', () => {
  test('a stream, a break, a resume: duplicates dropped, the successor proves it; the trace and times are exact', async () => {
    vi.useFakeTimers({ now: 1_000 });
    const s = setup();
    const first = live();
    const run = s.follow(undefined, first.iterable);
    vi.setSystemTime(1_005);
    first.push(event(0));
    await vi.advanceTimersByTimeAsync(0);
    vi.setSystemTime(1_012);
    first.push(event(1));
    await vi.advanceTimersByTimeAsync(0);
    vi.setSystemTime(1_020);
    first.push(bare(200)); // an answer with no message: nothing to record
    first.push(RESULT);
    expect(await run).toEqual({ handed: [0, 1], error: null });
    vi.setSystemTime(1_030);
    expect(await s.follow(1, [event(1), event(2), RESULT])).toEqual({ handed: [2], error: null });
    expect(s.guard.cursor(T)).toBe(2);
    expect(s.trace.map(({ of, ...l }) => (void of, l))).toEqual([
      { type: 'binding', name: 'mcp-tasks', proofBudget: 10_000 },
      { type: 'tasks/stream', taskId: T, t: 0 },
      { type: 'tasks/event', taskId: T, seq: 0, t: 5 },
      { type: 'tasks/event', taskId: T, seq: 1, t: 12 },
      { type: 'tasks/result', t: 20 },
      { type: 'tasks/stream', taskId: T, after: 1, t: 30 },
      { type: 'tasks/event', taskId: T, seq: 1, t: 30 },
      { type: 'tasks/event', taskId: T, seq: 2, t: 30 },
      { type: 'decision', outcome: 'resumed', t: 30 },
      { type: 'tasks/result', t: 30 },
    ]);
    expect(s.decisions).toEqual([
      {
        taskId: T,
        outcome: 'resumed',
        reason: { code: 'successor', text: "first event 2 is the cursor's successor" },
        after: 1,
      },
    ]);
    expect(s.failures).toEqual([]);
    expect((await checkTrace(s.lines())).reconnects.map((r) => r.verdict)).toEqual(['ok']);
  });

  test('the decision line carries the time of the fact that decided, not a later one', async () => {
    vi.useFakeTimers({ now: 0 });
    const s = setup();
    await s.follow(undefined, [event(0)]);
    const resume = live();
    const run = s.follow(0, resume.iterable);
    vi.setSystemTime(40);
    resume.push(event(1));
    await vi.advanceTimersByTimeAsync(0);
    vi.setSystemTime(90);
    resume.push(RESULT);
    await run;
    expect(s.plain().slice(-3)).toEqual([
      { type: 'tasks/event', taskId: T, seq: 1 },
      { type: 'decision', outcome: 'resumed' },
      { type: 'tasks/result' },
    ]);
    expect(s.trace.slice(-3).map((l) => l.t)).toEqual([40, 40, 90]);
  });

  test('a stream that ends without its result is a break; the reader calls again with the cursor', async () => {
    const s = setup();
    const a = answer([event(0), event(1)]);
    expect(await s.follow(undefined, a.iterable)).toEqual({ handed: [0, 1], error: null });
    expect(a.state.closed).toBe(true);
    expect(s.plain().at(-1)).toEqual({ type: 'disconnect' });
    expect(s.guard.cursor(T)).toBe(1);
  });

  test('an answer that breaks ends a fresh stream quietly, fails an unanswered resume, and a bound is rethrown', async () => {
    const s = setup();
    const broke = answer([event(0)], new Error('socket hang up'));
    expect(await s.follow(undefined, broke.iterable)).toEqual({ handed: [0], error: null });
    expect(s.plain().at(-1)).toEqual({ type: 'disconnect' });
    const limit = new TaskStreamLimitError(T, 0, 'maxEventBytes', 99);
    const over = await s.follow(0, answer([event(1)], limit).iterable);
    expect(over).toEqual({ handed: [1], error: limit });
    // A resume broken before its first answer: rule 1, it failed.
    const failed = await s.follow(1, answer([], new Error('reset')).iterable);
    expect(failed.handed).toEqual([]);
    expect(failed.error).toBeInstanceOf(TaskStreamResumptionError);
    expect((failed.error as TaskStreamResumptionError).outcome).toBe('resumption-failed');
    expect(s.failures).toEqual([failed.error]);
  });

  test('an error thrown that is no Error still breaks the stream', async () => {
    const s = setup();
    expect(await s.follow(undefined, answer([event(0)], 'text').iterable)).toEqual({
      handed: [0],
      error: null,
    });
    expect(s.plain().at(-1)).toEqual({ type: 'disconnect' });
  });

  test('a reader that leaves early cuts the connection: a disconnect, and the answer is closed', async () => {
    const s = setup();
    const a = answer([event(0), event(1), event(2)]);
    for await (const e of s.guard.follow({ taskId: T }, a.iterable)) if (e.seq === 0) break;
    expect(a.state.closed).toBe(true);
    expect(s.plain().slice(1)).toEqual([
      { type: 'tasks/stream', taskId: T },
      { type: 'tasks/event', taskId: T, seq: 0 },
      { type: 'disconnect' },
    ]);
    expect(await s.follow(0, [event(1), RESULT])).toEqual({ handed: [1], error: null });
    expect((await checkTrace(s.lines())).reconnects.map((r) => [r.expected, r.verdict])).toEqual([
      ['resumed', 'ok'],
    ]);
  });

  test('a reader that leaves after the result records nothing more', async () => {
    const s = setup();
    for await (const e of s.guard.follow({ taskId: T }, answer([event(0), RESULT]).iterable))
      void e;
    const n = s.trace.length;
    const a = answer([event(1), RESULT]);
    for await (const e of s.guard.follow({ taskId: T, after: 0 }, a.iterable)) {
      void e;
      break;
    }
    expect(s.plain().slice(n)).toEqual([
      { type: 'tasks/stream', taskId: T, after: 0 },
      { type: 'tasks/event', taskId: T, seq: 1 },
      { type: 'decision', outcome: 'resumed' },
      { type: 'disconnect' },
    ]);
  });

  test('one stream per task at a time; the task is free again once it ends', async () => {
    const s = setup();
    const first = s.guard.follow({ taskId: T }, answer([event(0), event(1)]).iterable);
    expect((await first.next()).value?.seq).toBe(0);
    await expect(
      s.guard.follow({ taskId: T, after: 0 }, answer([]).iterable).next(),
    ).rejects.toThrow(new Error('taskStreamGuard: task "task-1" already has a stream in progress'));
    // Another task is not held up.
    expect((await s.follow(undefined, [event(0, 'b')], 'b')).handed).toEqual([0]);
    expect((await first.next()).value?.seq).toBe(1);
    expect((await first.next()).done).toBe(true);
    expect((await s.follow(1, [event(2), RESULT])).handed).toEqual([2]);
  });

  test('other notifications are not recorded; events are handed on with their params', async () => {
    const s = setup();
    const got: unknown[] = [];
    for await (const e of s.guard.follow(
      { taskId: T },
      answer([PROGRESS, event(0), RESULT]).iterable,
    ))
      got.push(e);
    expect(got).toEqual([{ seq: 0, taskId: T, type: 'com.example.step', payload: { n: 0 } }]);
    expect(s.plain().map((l) => l['type'])).toEqual([
      'binding',
      'tasks/stream',
      'tasks/event',
      'tasks/result',
    ]);
  });

  test('events after the result are not read', async () => {
    const s = setup();
    const a = answer([event(0), RESULT, event(1)]);
    expect(await s.follow(undefined, a.iterable)).toEqual({ handed: [0], error: null });
    expect(a.state.closed).toBe(true);
  });
});

describe('failures, in the task words, and fail closed', () => {
  test('a skip fails the resume; every later call is refused with the same error until forgotten', async () => {
    const s = setup();
    await s.follow(undefined, [event(0), event(1)]);
    const r = await s.follow(1, [event(3), event(4)]);
    expect(r.handed).toEqual([]);
    const e = r.error as TaskStreamResumptionError;
    expect(e).toBeInstanceOf(TaskStreamResumptionError);
    expect([e.taskId, e.after, e.code, e.outcome]).toEqual([T, 1, 'skip', 'resumption-failed']);
    expect(e.message).toBe(
      'task "task-1", tasks/stream with after 1: replay gap: expected seq 2, got 3; silent skip of 1 event(s)',
    );
    expect(s.failures).toEqual([e]);
    expect(s.decisions.map((d) => [d.outcome, d.reason?.code, d.after])).toEqual([
      ['resumption-failed', 'skip', 1],
    ]);
    expect(s.plain().at(-1)).toEqual({ type: 'decision', outcome: 'resumption-failed' });
    const again = await s.follow(1, [event(2)]);
    expect(again).toEqual({ handed: [], error: e });
    expect(s.failures).toHaveLength(1);
    s.guard.forget(T);
    expect((await s.follow(undefined, [event(0)])).handed).toEqual([0]);
  });

  test('events_gone fails the resume; recover accepts the gap and resumes at earliestSeq - 1', async () => {
    const s = setup();
    await s.follow(undefined, [event(0), event(1)]);
    const r = await s.follow(1, [gone(5)]);
    const e = r.error as TaskStreamResumptionError;
    expect([e.code, e.outcome, e.after]).toEqual(['cursor-below-floor', 'resumption-failed', 1]);
    expect(s.guard.recover(T)).toBe(4);
    expect(s.guard.cursor(T)).toBe(4);
    expect(await s.follow(4, [event(5), RESULT])).toEqual({ handed: [5], error: null });
    // A second recovery needs a second events_gone.
    expect(() => s.guard.recover(T)).toThrow(
      'taskStreamGuard: task "task-1" has no events_gone to recover from; only a stream failed by events_gone can resume after its gap',
    );
    expect(() => s.guard.recover('unknown')).toThrow(/task "unknown" has no events_gone/);
    const lines = s.lines();
    expect((await checkTrace(lines)).reconnects.map((r) => [r.expected, r.verdict])).toEqual([
      ['resumption-failed', 'ok'],
      ['resumed', 'ok'],
    ]);
  });

  test('after a recovery, a later failure that is no events_gone cannot be recovered from', async () => {
    const s = setup();
    await s.follow(undefined, [event(0), event(1)]);
    await s.follow(1, [gone(5)]);
    expect(s.guard.recover(T)).toBe(4);
    // The resume at earliestSeq - 1 is proven, then the stream skips seq 6: a gap no one told.
    const skip = await s.follow(4, [event(5), event(7)]);
    expect(skip.handed).toEqual([5]);
    expect((skip.error as TaskStreamResumptionError).code).toBe('break');
    // The events_gone of the first failure was used up by its recovery: accepting this gap
    // would hand seq 8 on after a silent loss of seq 6.
    expect(() => s.guard.recover(T)).toThrow(/has no events_gone to recover from/);
    expect(await s.follow(5, [event(8)])).toEqual({ handed: [], error: skip.error });
  });

  test('a first call with after hands on no duplicate at or below it', async () => {
    const s = setup();
    expect(await s.follow(5, [event(3), event(5), event(6), RESULT])).toEqual({
      handed: [6],
      error: null,
    });
    expect(s.guard.cursor(T)).toBe(6);
  });

  test('recover keeps a cursor already past the gap, and refuses a failure that was no events_gone', async () => {
    const s = setup();
    await s.follow(undefined, [event(0), event(1), event(2), event(3)]);
    // earliestSeq 2 covers after 3: the receiver contradicts itself (a bad answer, no gap told).
    const bad = await s.follow(3, [gone(2)]);
    expect((bad.error as TaskStreamResumptionError).message).toMatch(
      /^task "task-1", tasks\/stream with after 3: events_gone with earliestSeq 2 contradicts itself/,
    );
    expect(() => s.guard.recover(T)).toThrow(/has no events_gone to recover from/);
    const t = setup();
    await t.follow(undefined, [event(0), event(1), event(2)]);
    await t.follow(0, [gone(2)]);
    // The gap told ends at seq 1, below what was handed on: the cursor stays at 2.
    expect(t.guard.recover(T)).toBe(2);
  });

  test('recover of a task that saw no event: the cursor is earliestSeq - 1', async () => {
    const s = setup();
    await s.follow(undefined, [RESULT]);
    const r = await s.follow(undefined, [gone(3)]);
    expect(r.error).toBeInstanceOf(TaskStreamResumptionError);
    expect(s.guard.recover(T)).toBe(2);
  });

  test('events_gone under HTTP 410 is classified on its body (SEP-2694), a bare 404 or 410 is a session lost', async () => {
    const s = setup();
    await s.follow(undefined, [event(0)]);
    const g = await s.follow(0, [gone(3, 410)]);
    expect((g.error as TaskStreamResumptionError).outcome).toBe('resumption-failed');
    for (const status of [404, 410]) {
      const t = setup();
      await t.follow(undefined, [event(0)]);
      const lost = (await t.follow(0, [bare(status)])).error as TaskStreamResumptionError;
      expect([lost.outcome, lost.code]).toEqual(['session-lost', 'session-gone']);
      expect(t.decisions.at(-1)?.outcome).toBe('session-lost');
      expect(t.plain().at(-1)).toEqual({ type: 'decision', outcome: 'session-lost' });
    }
  });

  test('an error answer to an opening call ends it with the status, code and message', async () => {
    const s = setup();
    const r = await s.follow(undefined, [
      { status: 500, message: { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'boom' } } },
    ]);
    expect(r.error).not.toBeInstanceOf(StreamResumptionError);
    expect((r.error as Error).message).toBe(
      'taskStreamGuard: task "task-1", tasks/stream without after: answered HTTP status 500 JSON-RPC error -32603 (boom)',
    );
    const t = setup();
    expect(((await t.follow(undefined, [bare(404)])).error as Error).message).toBe(
      'taskStreamGuard: task "task-1", tasks/stream without after: answered HTTP status 404',
    );
    const u = setup();
    const noMessage = await u.follow(undefined, [
      { status: 200, message: { jsonrpc: '2.0', id: 1, error: { code: 7 } } },
    ]);
    expect((noMessage.error as Error).message).toBe(
      'taskStreamGuard: task "task-1", tasks/stream without after: answered HTTP status 200 JSON-RPC error 7',
    );
    expect(s.failures).toEqual([]);
    // Not a failure of the task: it may call again.
    expect((await s.follow(undefined, [event(0)])).handed).toEqual([0]);
  });

  test('a first call with after (a cursor kept by an earlier process) is judged: its successor is handed on, a skip fails', async () => {
    const s = setup();
    const r = await s.follow(3, [event(4), event(5), RESULT]);
    expect(r.error).toBeNull();
    expect(r.handed).toEqual([4, 5]);
    expect(s.decisions.map((d) => [d.outcome, d.reason?.code])).toEqual([['resumed', 'successor']]);
    const t = setup();
    const skipped = await t.follow(3, [event(6), RESULT]);
    expect(skipped.handed).toEqual([]);
    expect(skipped.error).toBeInstanceOf(StreamResumptionError);
    expect(t.failures.map((f) => f.code)).toEqual(['skip']);
  });

  test('a malformed event is not handed on: the stream is given up, a resume fails', async () => {
    const s = setup();
    const r = await s.follow(undefined, [event(0), event('1'), event(1)]);
    expect(r.handed).toEqual([0]);
    expect(r.error).not.toBeInstanceOf(StreamResumptionError);
    expect((r.error as Error).message).toBe(
      'taskStreamGuard: task "task-1": malformed message (tasks/event seq must be a non-negative integer, got "1"); stream given up',
    );
    expect(s.plain().at(-1)).toEqual({
      type: 'disconnect',
      malformed: 'tasks/event seq must be a non-negative integer, got "1"',
    });
    const resumed = await s.follow(0, [event(-1)]);
    const e = resumed.error as TaskStreamResumptionError;
    expect(e).toBeInstanceOf(TaskStreamResumptionError);
    expect([e.outcome, e.after]).toEqual(['resumption-failed', 0]);
    expect((await checkTrace(s.lines())).exitCode).toBe(0);
  });

  test("another task's event on the answer is a break, never handed on", async () => {
    const s = setup();
    await s.follow(undefined, [event(0)]);
    const r = await s.follow(0, [event(1, 'other'), event(1)]);
    expect(r.handed).toEqual([]);
    expect((r.error as TaskStreamResumptionError).outcome).toBe('resumption-failed');
  });

  test('a call without after, once events were handed on, is a resume from the cursor', async () => {
    const s = setup();
    await s.follow(undefined, [event(0), event(1)]);
    expect(await s.follow(undefined, [event(0), event(1), event(2), RESULT])).toEqual({
      handed: [2],
      error: null,
    });
    expect(s.decisions.map((d) => [d.outcome, d.after])).toEqual([['resumed', null]]);
  });
});

describe('the proof budget and the idle bound', () => {
  test('a resume still unanswered when the budget runs out fails; the answer is closed', async () => {
    vi.useFakeTimers({ now: 0 });
    const s = setup({ proofTimeoutMs: 100 });
    await s.follow(undefined, [event(0)]);
    const a = live();
    const run = s.follow(0, a.iterable);
    await vi.advanceTimersByTimeAsync(100);
    expect(s.failures).toEqual([]);
    await vi.advanceTimersByTimeAsync(2);
    const r = await run;
    expect(r.handed).toEqual([]);
    const e = r.error as TaskStreamResumptionError;
    expect(e).toBeInstanceOf(TaskStreamResumptionError);
    expect(e.outcome).toBe('resumption-failed');
    expect(a.state.closed).toBe(true);
    expect(s.plain().slice(-2)).toEqual([
      { type: 'disconnect' },
      { type: 'decision', outcome: 'resumption-failed' },
    ]);
    expect((await checkTrace(s.lines())).reconnects.map((x) => [x.expected, x.verdict])).toEqual([
      ['resumption-failed', 'ok'],
    ]);
  });

  test('duplicates do not extend the budget: a fact after it ran out fails the resume first', async () => {
    vi.useFakeTimers({ now: 0 });
    const s = setup({ proofTimeoutMs: 100 });
    await s.follow(undefined, [event(0), event(1)]);
    const a = live();
    const run = s.follow(1, a.iterable);
    a.push(event(0));
    await vi.advanceTimersByTimeAsync(50);
    a.push(event(1));
    // The clock passes the budget without the timer firing: the next fact finds it run out.
    vi.setSystemTime(150);
    a.push(event(2));
    const r = await run;
    expect(r.handed).toEqual([]);
    expect((r.error as TaskStreamResumptionError).outcome).toBe('resumption-failed');
    expect((await checkTrace(s.lines())).reconnects.map((x) => [x.expected, x.verdict])).toEqual([
      ['resumption-failed', 'ok'],
    ]);
  });

  test('a proven resume is not failed by its budget later', async () => {
    vi.useFakeTimers({ now: 0 });
    const s = setup({ proofTimeoutMs: 100 });
    await s.follow(undefined, [event(0)]);
    const a = live();
    const run = s.follow(0, a.iterable);
    a.push(event(1));
    await vi.advanceTimersByTimeAsync(500);
    a.push(event(2));
    await vi.advanceTimersByTimeAsync(0);
    a.push(RESULT);
    expect(await run).toEqual({ handed: [1, 2], error: null });
    expect(s.failures).toEqual([]);
  });

  test('the polls of one episode share the budget: an empty answer is delayed, a poll past the budget fails', async () => {
    vi.useFakeTimers({ now: 0 });
    const s = setup({ proofTimeoutMs: 100 });
    await s.follow(undefined, [event(0), event(1)]);
    expect(await s.follow(1, [RESULT])).toEqual({ handed: [], error: null });
    expect(s.plain().slice(-2)).toEqual([
      { type: 'tasks/result' },
      { type: 'decision', outcome: 'delayed' },
    ]);
    vi.setSystemTime(60);
    expect(await s.follow(1, [RESULT])).toEqual({ handed: [], error: null });
    vi.setSystemTime(120);
    const r = await s.follow(1, [event(2)]);
    expect(r.handed).toEqual([]);
    expect((r.error as TaskStreamResumptionError).outcome).toBe('resumption-failed');
    expect((await checkTrace(s.lines())).reconnects.every((x) => x.verdict === 'ok')).toBe(true);
  });

  test('a poll within the budget proves the episode; the timer between polls fails it when it runs out', async () => {
    vi.useFakeTimers({ now: 0 });
    const s = setup({ proofTimeoutMs: 100 });
    await s.follow(undefined, [event(0)]);
    await s.follow(0, [RESULT]);
    vi.setSystemTime(80);
    expect(await s.follow(0, [event(1), RESULT])).toEqual({ handed: [1], error: null });
    expect(s.decisions.map((d) => d.outcome)).toEqual(['resumed']);

    const t = setup({ proofTimeoutMs: 100 });
    await t.follow(undefined, [event(0)]);
    await t.follow(0, [RESULT]);
    await vi.advanceTimersByTimeAsync(200);
    expect(t.failures.map((e) => e.outcome)).toEqual(['resumption-failed']);
    expect((await t.follow(0, [event(1)])).error).toBe(t.failures[0]);
  });

  test('polls without after from the same last seq are one episode, as the oracle counts them: the next new seq proves it (no false alarm)', async () => {
    vi.useFakeTimers({ now: 0 });
    const s = setup({ proofTimeoutMs: 100 });
    await s.follow(undefined, [event(0), event(1)]);
    // Without after the receiver starts at its earliest event: 0 and 1 are duplicates.
    expect(await s.follow(undefined, [event(0), event(1), RESULT])).toEqual({
      handed: [],
      error: null,
    });
    vi.setSystemTime(60);
    expect(await s.follow(undefined, [event(0), event(1), event(2), RESULT])).toEqual({
      handed: [2],
      error: null,
    });
    expect(s.failures).toEqual([]);
    expect(s.decisions.map((d) => d.outcome)).toEqual(['resumed']);
    const report = await checkTrace(s.lines(), { strict: true });
    expect(report.reconnects.map((x) => x.verdict)).toEqual(['ok', 'ok']);
  });

  test('a new call with another after closes the window of an unproven resume: it failed', async () => {
    vi.useFakeTimers({ now: 0 });
    const s = setup({ proofTimeoutMs: 1_000 });
    await s.follow(undefined, [event(0), event(1)]);
    await s.follow(1, [RESULT]); // delayed, unproven
    const r = await s.follow(0, [event(1), event(2)]);
    expect(r.handed).toEqual([]);
    expect((r.error as TaskStreamResumptionError).outcome).toBe('resumption-failed');
    expect((await checkTrace(s.lines())).reconnects.every((x) => x.verdict === 'ok')).toBe(true);
  });

  test('idleTimeoutMs gives a silent stream up: quietly for a fresh stream, failed for a resume', async () => {
    vi.useFakeTimers({ now: 0 });
    const s = setup({ idleTimeoutMs: 50 });
    const a = live();
    const run = s.follow(undefined, a.iterable);
    a.push(event(0));
    await vi.advanceTimersByTimeAsync(49);
    expect(s.plain().at(-1)).toEqual({ type: 'tasks/event', taskId: T, seq: 0 });
    await vi.advanceTimersByTimeAsync(1);
    const r = await run;
    expect(r.handed).toEqual([0]);
    expect((r.error as Error).message).toBe(
      'taskStreamGuard: no message for 50 ms (idleTimeoutMs)',
    );
    expect(s.plain().slice(-2)).toEqual([{ type: 'idle-timeout' }, { type: 'disconnect' }]);
    expect(a.state.closed).toBe(true);
    const b = live();
    const resume = s.follow(0, b.iterable);
    await vi.advanceTimersByTimeAsync(50);
    const failed = await resume;
    expect(failed.error).toBeInstanceOf(TaskStreamResumptionError);
    expect((await checkTrace(s.lines())).reconnects.map((x) => [x.expected, x.verdict])).toEqual([
      ['resumption-failed', 'ok'],
    ]);
  });

  test('without idleTimeoutMs a stream may stay silent past any time (only a resume is budgeted)', async () => {
    vi.useFakeTimers({ now: 0 });
    const s = setup();
    const a = live();
    const run = s.follow(undefined, a.iterable);
    await vi.advanceTimersByTimeAsync(3_600_000);
    a.push(event(0));
    a.push(RESULT);
    expect(await run).toEqual({ handed: [0], error: null });
    expect(vi.getTimerCount()).toBe(0);
  });

  test('an event in time clears the idle timer', async () => {
    vi.useFakeTimers({ now: 0 });
    const s = setup({ idleTimeoutMs: 50 });
    const a = live();
    const run = s.follow(undefined, a.iterable);
    a.push(event(0));
    await vi.advanceTimersByTimeAsync(10);
    a.push(RESULT);
    expect(await run).toEqual({ handed: [0], error: null });
    expect(vi.getTimerCount()).toBe(0);
  });

  test('forget clears the budget of a task between polls', async () => {
    vi.useFakeTimers({ now: 0 });
    const s = setup({ proofTimeoutMs: 100 });
    await s.follow(undefined, [event(0)]);
    await s.follow(0, [RESULT]);
    expect(vi.getTimerCount()).toBe(1);
    s.guard.forget(T);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('each named guard mutant misbehaves where it should (and the guard does not)', () => {
  async function both(
    mutant: TaskGuardMutantName,
    script: (s: ReturnType<typeof setup>) => Promise<unknown>,
  ) {
    const o = { proofTimeoutMs: 100 };
    return [await script(setup(o, undefined)), await script(setup(o, mutant))];
  }

  test('accepts-skip hands on the events after a skip', async () => {
    const [good, bad] = await both('accepts-skip', async (s) => {
      await s.follow(undefined, [event(0)]);
      const r = await s.follow(0, [event(2), event(3), event(3), event(1), RESULT]);
      return [r.handed, r.error instanceof StreamResumptionError];
    });
    expect(good).toEqual([[], true]);
    expect(bad).toEqual([[2, 3], false]);
  });

  test('forwards-duplicates hands a duplicate on', async () => {
    const [good, bad] = await both('forwards-duplicates', async (s) => {
      await s.follow(undefined, [event(0), event(1)]);
      return (await s.follow(1, [event(1), event(2), RESULT])).handed;
    });
    expect(good).toEqual([2]);
    expect(bad).toEqual([1, 2]);
  });

  test('gone-410-is-session-lost calls events_gone over 410 a session lost', async () => {
    const [good, bad] = await both('gone-410-is-session-lost', async (s) => {
      await s.follow(undefined, [event(0)]);
      return ((await s.follow(0, [gone(4, 410)])).error as StreamResumptionError).outcome;
    });
    expect(good).toBe('resumption-failed');
    expect(bad).toBe('session-lost');
  });

  test('accepts-missing-after hands the replay of a call without after on again', async () => {
    const [good, bad] = await both('accepts-missing-after', async (s) => {
      await s.follow(undefined, [event(0)]);
      return (await s.follow(undefined, [event(0), event(1), RESULT])).handed;
    });
    expect(good).toEqual([1]);
    expect(bad).toEqual([0, 1]);
  });

  test('cursor-follows-duplicates moves the cursor back to a dropped duplicate', async () => {
    const [good, bad] = await both('cursor-follows-duplicates', async (s) => {
      await s.follow(undefined, [event(0), event(1), event(2)]);
      await s.follow(2, [event(1)]);
      return s.guard.cursor(T);
    });
    expect(good).toBe(2);
    expect(bad).toBe(1);
  });

  test('budget-per-poll polls on past the budget', async () => {
    vi.useFakeTimers({ now: 0 });
    const [good, bad] = await both('budget-per-poll', async (s) => {
      await s.follow(undefined, [event(0)]);
      for (let poll = 0; poll < 10; poll++) {
        vi.setSystemTime(Date.now() + 60);
        const r = await s.follow(0, [RESULT]);
        if (r.error) return `failed at poll ${poll}`;
      }
      return 'still polling';
    });
    // Polls at 60, 120, 180 ms: the episode began at 60, so the third is past its 100 ms.
    expect(good).toBe('failed at poll 2');
    expect(bad).toBe('still polling');
  });
});

describe('what the guard holds and releases', () => {
  test('the machine option decides: a machine that accepts a skip hands it on', async () => {
    const machine = MACHINE_MUTANTS.find((m) => m.name === 'accepts-skip')!.machine;
    const s = setup({ machine });
    await s.follow(undefined, [event(0)]);
    expect(await s.follow(0, [event(2), RESULT])).toEqual({ handed: [2], error: null });
    const t = setup();
    await t.follow(undefined, [event(0)]);
    expect((await t.follow(0, [event(2), RESULT])).handed).toEqual([]);
  });

  test('a fresh stream arms no timer; a resume arms the budget, and its proof clears it', async () => {
    vi.useFakeTimers({ now: 0 });
    const s = setup({ proofTimeoutMs: 100 });
    const a = live();
    const run = s.follow(undefined, a.iterable);
    await vi.advanceTimersByTimeAsync(0);
    expect(vi.getTimerCount()).toBe(0);
    a.push(event(0));
    a.push(RESULT);
    await run;
    const b = live();
    const resume = s.follow(0, b.iterable);
    await vi.advanceTimersByTimeAsync(0);
    expect(vi.getTimerCount()).toBe(1);
    b.push(event(1));
    await vi.advanceTimersByTimeAsync(0);
    expect(vi.getTimerCount()).toBe(0);
    b.push(RESULT);
    expect(await resume).toEqual({ handed: [1], error: null });
  });

  test('an answer that breaks clears the idle timer', async () => {
    vi.useFakeTimers({ now: 0 });
    const s = setup({ idleTimeoutMs: 50 });
    expect(await s.follow(undefined, answer([event(0)], new Error('reset')).iterable)).toEqual({
      handed: [0],
      error: null,
    });
    expect(vi.getTimerCount()).toBe(0);
  });

  test('a break records one disconnect, at its own time; an idle bound records its line at the time it fired', async () => {
    vi.useFakeTimers({ now: 0 });
    const s = setup({ idleTimeoutMs: 50 });
    await s.follow(undefined, [event(0)]);
    expect(s.plain().slice(-2)).toEqual([
      { type: 'tasks/event', taskId: T, seq: 0 },
      { type: 'disconnect' },
    ]);
    await s.follow(0, answer([event(1)], new Error('reset')).iterable);
    expect(s.plain().slice(-3)).toEqual([
      { type: 'tasks/event', taskId: T, seq: 1 },
      { type: 'decision', outcome: 'resumed' },
      { type: 'disconnect' },
    ]);
    const a = live();
    const run = s.follow(1, a.iterable);
    vi.setSystemTime(10);
    a.push(event(2));
    await vi.advanceTimersByTimeAsync(50);
    await run;
    expect(s.trace.slice(-4).map(({ type, t }) => [type, t])).toEqual([
      ['tasks/event', 10],
      ['decision', 10],
      ['idle-timeout', 60],
      ['disconnect', 60],
    ]);
  });

  test('a resume whose answer ends before any event fails (rule 1), and says so', async () => {
    const s = setup();
    await s.follow(undefined, [event(0)]);
    const r = await s.follow(0, []);
    expect(r.error).toBeInstanceOf(TaskStreamResumptionError);
    expect(s.failures).toEqual([r.error]);
  });

  test('a task forgotten while it is read records nothing more when the reader leaves', async () => {
    const s = setup();
    for await (const e of s.guard.follow({ taskId: T }, answer([event(0), event(1)]).iterable)) {
      void e;
      s.guard.forget(T);
      break;
    }
    expect(s.plain().at(-1)).toEqual({ type: 'tasks/event', taskId: T, seq: 0 });
  });

  test('an answer without return(), or whose return() gives no promise, is left quietly', async () => {
    const s = setup();
    const items = [event(0), RESULT];
    const bare = (ret?: () => unknown): AsyncIterable<TaskStreamItem> => ({
      [Symbol.asyncIterator]() {
        let i = 0;
        return {
          next: () =>
            Promise.resolve(
              i < items.length
                ? { done: false as const, value: items[i++]! }
                : { done: true as const, value: undefined },
            ),
          ...(ret ? { return: ret as () => Promise<IteratorResult<TaskStreamItem>> } : {}),
        };
      },
    });
    expect(await s.follow(undefined, bare())).toEqual({ handed: [0], error: null });
    s.guard.forget(T);
    expect(
      await s.follow(
        undefined,
        bare(() => undefined),
      ),
    ).toEqual({ handed: [0], error: null });
  });

  test('recover of a task that saw no event, after events_gone with earliestSeq 1: the cursor is 0', async () => {
    const s = setup();
    await s.follow(undefined, [RESULT]);
    await s.follow(undefined, [gone(1)]);
    expect(s.guard.recover(T)).toBe(0);
  });
});

describe('duplicates in order are dropped wherever they come', () => {
  test('on a fresh stream, and on a resume after its proof', async () => {
    const s = setup();
    expect(await s.follow(undefined, [event(0), event(0), event(1), event(1)])).toEqual({
      handed: [0, 1],
      error: null,
    });
    expect(await s.follow(1, [event(2), event(2), event(3), RESULT])).toEqual({
      handed: [2, 3],
      error: null,
    });
  });
});

describe('the guard follows the machine it is given', () => {
  test('a machine that fails the call itself (every cursor dropped): the resume fails before any answer is read, and the decision is reported', async () => {
    const machine = clientMachine.provide({ guards: { cursorDropped: () => true } });
    const s = setup({ machine });
    await s.follow(undefined, [event(0)]);
    const a = answer([event(1), RESULT]);
    const r = await s.follow(0, a.iterable);
    expect(r.handed).toEqual([]);
    expect((r.error as TaskStreamResumptionError).code).toBe('cursor-dropped');
    expect(s.decisions.map((d) => [d.outcome, d.reason?.code, d.after])).toEqual([
      ['resumption-failed', 'cursor-dropped', 0],
    ]);
    expect(s.plain().slice(-2)).toEqual([
      { type: 'tasks/stream', taskId: T, after: 0 },
      { type: 'decision', outcome: 'resumption-failed' },
    ]);
  });

  test('a machine whose floor check is off by one waits (delayed) on events_gone; the budget then fails it, and both decisions are reported', async () => {
    vi.useFakeTimers({ now: 0 });
    const machine = MACHINE_MUTANTS.find((m) => m.name === 'off-by-one-floor')!.machine;
    const s = setup({ machine, proofTimeoutMs: 100 });
    await s.follow(undefined, [event(0)]);
    // earliestSeq 2 after 0: the client machine fails it (seq 1 is gone); this one waits.
    const r = await s.follow(0, [gone(2)]);
    expect(r.error).not.toBeInstanceOf(StreamResumptionError);
    expect(s.decisions.map((d) => [d.outcome, d.reason?.code])).toEqual([
      ['delayed', 'floor-covers'],
    ]);
    expect(s.plain().at(-1)).toEqual({ type: 'decision', outcome: 'delayed' });
    await vi.advanceTimersByTimeAsync(100);
    expect(s.failures).toEqual([]);
    await vi.advanceTimersByTimeAsync(2);
    expect(s.failures.map((e) => [e.outcome, e.code])).toEqual([['resumption-failed', 'unproven']]);
    expect(s.decisions.map((d) => d.outcome)).toEqual(['delayed', 'resumption-failed']);
  });
});

describe('the proof budget, at its edges', () => {
  test('the successor at exactly the budget still proves the resume', async () => {
    vi.useFakeTimers({ now: 0 });
    const s = setup({ proofTimeoutMs: 100 });
    await s.follow(undefined, [event(0)]);
    const a = live();
    const run = s.follow(0, a.iterable);
    await vi.advanceTimersByTimeAsync(0);
    vi.setSystemTime(100);
    a.push(event(1));
    await vi.advanceTimersByTimeAsync(0);
    a.push(RESULT);
    expect(await run).toEqual({ handed: [1], error: null });
    expect((await checkTrace(s.lines())).reconnects.map((x) => x.verdict)).toEqual(['ok']);
  });

  test('a later poll re-arms the timer for what is left of the episode, not more', async () => {
    vi.useFakeTimers({ now: 0 });
    const s = setup({ proofTimeoutMs: 100 });
    await s.follow(undefined, [event(0)]);
    await s.follow(0, [RESULT]);
    await vi.advanceTimersByTimeAsync(60);
    await s.follow(0, [RESULT]);
    await vi.advanceTimersByTimeAsync(40);
    expect(s.failures).toEqual([]);
    await vi.advanceTimersByTimeAsync(2);
    expect(s.failures.map((e) => e.outcome)).toEqual(['resumption-failed']);
  });

  test('a poll past the budget is refused before it is sent: nothing it brings is handed on', async () => {
    vi.useFakeTimers({ now: 0 });
    const s = setup({ proofTimeoutMs: 100 });
    await s.follow(undefined, [event(0)]);
    await s.follow(0, [RESULT]);
    vi.setSystemTime(150); // the timer has not fired: the call finds the budget run out
    const r = await s.follow(0, [event(1), RESULT]);
    expect(r.handed).toEqual([]);
    expect(r.error).toBeInstanceOf(TaskStreamResumptionError);
    expect(s.plain().at(-1)).toEqual({ type: 'decision', outcome: 'resumption-failed' });
    // Not sent: the trace has the opening call and the first poll only, and one failure.
    expect(s.plain().filter((l) => l['type'] === 'tasks/stream')).toHaveLength(2);
    expect(s.failures).toHaveLength(1);
  });

  test('a call again with the after of a proven resume starts a new episode', async () => {
    vi.useFakeTimers({ now: 0 });
    const s = setup({ proofTimeoutMs: 100 });
    await s.follow(undefined, [event(0)]);
    expect((await s.follow(0, [event(1), RESULT])).handed).toEqual([1]);
    vi.setSystemTime(500);
    const r = await s.follow(0, [event(1), event(2), RESULT]);
    expect(r).toEqual({ handed: [1, 2], error: null });
    expect((await checkTrace(s.lines())).reconnects.map((x) => x.verdict)).toEqual(['ok', 'ok']);
  });
});

describe('the accepts-skip mutant lets skips through, and nothing else', () => {
  test('it still fails on events_gone', async () => {
    const s = setup({}, 'accepts-skip');
    await s.follow(undefined, [event(0)]);
    expect((await s.follow(0, [gone(5)])).error).toBeInstanceOf(StreamResumptionError);
  });

  test('after a skip it hands on the task’s fresh events only: no duplicate, no other task', async () => {
    const s = setup({}, 'accepts-skip');
    await s.follow(undefined, [event(0)]);
    // The other task's seq 5 is fresh for this task's cursor: it is still not this task's.
    const r = await s.follow(0, [event(2), event(5, 'other'), event(1), event(3), RESULT]);
    expect(r).toEqual({ handed: [2, 3], error: null });
  });

  test('a skip before any event was handed on is handed on too', async () => {
    const s = setup({}, 'accepts-skip');
    await s.follow(undefined, [RESULT]);
    // A call again before any event resumes from the task's start: seq 2 skips 0 and 1.
    expect(await s.follow(undefined, [event(2), event(3), RESULT])).toEqual({
      handed: [2, 3],
      error: null,
    });
  });
});

/** One random call: its `after` and its answer. */
const item = fc.oneof(
  { weight: 6, arbitrary: fc.nat(8).map((seq) => event(seq)) },
  { weight: 1, arbitrary: fc.nat(8).map((seq) => event(seq, 'other')) },
  { weight: 2, arbitrary: fc.constant(RESULT) },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.nat(8), fc.constantFrom(200, 410)).map(([s, st]) => gone(s, st)),
  },
  { weight: 1, arbitrary: fc.constantFrom(404, 410, 500, 302).map(bare) },
  { weight: 1, arbitrary: fc.constant(PROGRESS) },
);
const call = fc.record({
  after: fc.oneof(fc.constant('cursor' as const), fc.constant('none' as const), fc.nat(8)),
  items: fc.array(item, { maxLength: 6 }),
  end: fc.constantFrom('end', 'throw', 'leave'),
  recover: fc.boolean(),
});

describe('property: the guard agrees with the oracle on its own trace, and never hands on a gap', () => {
  test('random hostile answers', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 6 }), async (calls) => {
        vi.useFakeTimers({ now: 0 });
        const s = setup({ proofTimeoutMs: 1_000 });
        let failure: unknown = null;
        // A first call may carry after (a cursor kept by an earlier process).
        for (const c of calls) {
          const cursor = s.guard.cursor(T);
          const after = c.after === 'none' ? undefined : c.after === 'cursor' ? cursor : c.after;
          const a = answer(c.items, c.end === 'throw' ? new Error('reset') : undefined);
          const params = after === undefined ? { taskId: T } : { taskId: T, after };
          // NoSilentGap, from what the client holds: the seq after its `after` (without one,
          // after the guard's cursor), then each next one, once.
          let expected = (after ?? cursor ?? -1) + 1;
          try {
            for await (const e of s.guard.follow(params, a.iterable)) {
              expect(e.seq, JSON.stringify(params)).toBe(expected++);
              if (c.end === 'leave') break;
            }
          } catch (e) {
            if (failure !== null && e instanceof StreamResumptionError) expect(e).toBe(failure);
            if (e instanceof StreamResumptionError) failure = e;
          }
          if (failure && c.recover) {
            try {
              s.guard.recover(T);
              failure = null;
            } catch {
              // not an events_gone failure: it stays failed
            }
          }
        }
        // The end of the run is not the end of an episode: its budget runs out first.
        await vi.advanceTimersByTimeAsync(1_001);
        vi.useRealTimers();
        const report = await checkTrace(s.lines());
        const bad = report.reconnects.filter((r) => r.verdict !== 'ok');
        expect(bad, s.lines().join('\n')).toEqual([]);
      }),
      { seed, numRuns: runs(300) },
    );
  });
});
