/**
 * TaskEventLog's small rules, exactly: its bounds and their words, the ids it issues, the event
 * it stores, retention and trimming, every refusal of `openStream` with its code and words, a
 * live reader's abort, and `isEventsGone`. The contract suite (./task-event-log.test.ts) holds
 * the log's promises as a property; these tests pin each value, so that a changed word, bound
 * or test is a failing test for the mutation suite (`npm run mutation:tasks`), in milliseconds.
 */
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, test, vi } from 'vitest';
import {
  EVENTS_GONE_CODE,
  EventsGoneError,
  INVALID_PARAMS,
  isEventsGone,
  TaskEventLog,
  TaskLogCapacityError,
  type TaskEvent,
} from '../../src/runtime/index.js';

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** Every event a stream yields until it ends (the task is complete). */
async function drain(events: AsyncGenerator<TaskEvent, void, undefined>): Promise<number[]> {
  const out: number[] = [];
  for await (const e of events) out.push(e.seq);
  return out;
}

/** The events of a stream opened with `params`, or the error it was refused with. */
async function open(log: TaskEventLog, params: unknown) {
  const o = log.openStream(params);
  return o.ok ? { events: await drain(o.events) } : { error: o.error };
}

describe('bounds, ids and the events stored', () => {
  test('each bound must be an integer >= 1, named in the error', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => new TaskEventLog({ maxEventsPerTask: bad })).toThrow(
        new RangeError(`TaskEventLog: maxEventsPerTask must be an integer >= 1, got ${bad}`),
      );
      expect(() => new TaskEventLog({ maxTasks: bad })).toThrow(
        new RangeError(`TaskEventLog: maxTasks must be an integer >= 1, got ${bad}`),
      );
    }
    expect(() => new TaskEventLog({ maxEventsPerTask: 1, maxTasks: 1 })).not.toThrow();
  });

  test('the epoch is the time and six random characters, base 36; ids count up from 1', () => {
    vi.useFakeTimers({ now: 1_700_000_000_000 });
    vi.spyOn(Math, 'random').mockReturnValue(0.123456789);
    const log = new TaskEventLog();
    expect(log.epoch).toBe('loyw3v28' + '4fzzzx');
    expect([log.createTask(), log.createTask(), log.createTask()]).toEqual([
      'task-loyw3v284fzzzx-1',
      'task-loyw3v284fzzzx-2',
      'task-loyw3v284fzzzx-3',
    ]);
  });

  test('an event gets the next seq, its type, payload and the related-task meta', () => {
    const log = new TaskEventLog();
    const id = log.createTask();
    expect(log.append(id, 'com.example.a')).toStrictEqual({
      seq: 0,
      taskId: id,
      type: 'com.example.a',
      payload: {},
      _meta: { 'io.modelcontextprotocol/related-task': { taskId: id } },
    });
    expect(log.append(id, 'com.example.b', { n: 1 }).seq).toBe(1);
  });

  test('unknown and finished tasks are refused with their id', () => {
    const log = new TaskEventLog();
    for (const act of [
      () => log.append('nope', 'x'),
      () => log.trim('nope', 1),
      () => log.complete('nope'),
    ]) {
      expect(act).toThrow(new RangeError('TaskEventLog: unknown task "nope"'));
    }
    const id = log.createTask();
    log.complete(id);
    expect(() => log.append(id, 'x')).toThrow(
      new RangeError(`TaskEventLog: task "${id}" has finished`),
    );
    expect(log.describe('nope')).toBeUndefined();
  });

  test('a full log of running tasks refuses one more, naming the bound', () => {
    const log = new TaskEventLog({ maxTasks: 1 });
    log.createTask();
    let error: unknown = null;
    try {
      log.createTask();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TaskLogCapacityError);
    const e = error as TaskLogCapacityError;
    expect([e.name, e.message, e.maxTasks]).toEqual([
      'TaskLogCapacityError',
      'TaskEventLog: already holds maxTasks (1) running tasks; finish one before creating another',
      1,
    ]);
  });
});

describe('retention and trimming', () => {
  test('describe: nothing retained is earliest null; retention keeps the last maxEventsPerTask', () => {
    const log = new TaskEventLog({ maxEventsPerTask: 2 });
    const id = log.createTask();
    expect(log.describe(id)).toEqual({ earliest: null, next: 0, done: false });
    log.append(id, 'x');
    log.append(id, 'x');
    expect(log.describe(id)).toEqual({ earliest: 0, next: 2, done: false });
    log.append(id, 'x');
    expect(log.describe(id)).toEqual({ earliest: 1, next: 3, done: false });
  });

  test('trim drops the events before `before` exactly, and returns the earliest left', () => {
    const log = new TaskEventLog();
    const id = log.createTask();
    for (let i = 0; i < 6; i++) log.append(id, 'x');
    expect(log.trim(id, 0)).toBe(0);
    expect(log.trim(id, 2)).toBe(2);
    expect(log.describe(id)?.earliest).toBe(2);
    expect(log.trim(id, 2)).toBe(2);
    expect(log.trim(id, 4)).toBe(4);
    // Past the last event: nothing is left, and the earliest is the next seq.
    expect(log.trim(id, 99)).toBe(6);
    expect(log.describe(id)).toEqual({ earliest: null, next: 6, done: false });
    log.append(id, 'x');
    expect(log.describe(id)).toEqual({ earliest: 6, next: 7, done: false });
  });

  test('a trimmed cursor is refused with events_gone, also when nothing is retained', async () => {
    const log = new TaskEventLog();
    const id = log.createTask();
    for (let i = 0; i < 4; i++) log.append(id, 'x');
    log.trim(id, 10);
    log.complete(id);
    expect(await open(log, { taskId: id, after: 1 })).toEqual({
      error: {
        code: EVENTS_GONE_CODE,
        message: 'Task events are no longer available',
        data: { reason: 'events_gone', taskId: id, earliestSeq: 4 },
      },
    });
    expect(await open(log, { taskId: id, after: 3 })).toEqual({ events: [] });
    expect(await open(log, { taskId: id })).toEqual({ events: [] });
  });

  test('a live reader waiting for its next event gets events_gone when it is trimmed away', async () => {
    const log = new TaskEventLog();
    const id = log.createTask();
    log.append(id, 'x');
    const o = log.openStream({ taskId: id, after: 0 });
    if (!o.ok) throw new Error('refused');
    const next = o.events.next();
    log.append(id, 'x');
    log.append(id, 'x');
    log.trim(id, 2);
    // Woken by the append, the reader finds seq 1 gone: it is never skipped.
    await expect(next).rejects.toThrow(EventsGoneError);
  });

  test('a trim alone wakes a live reader', async () => {
    const log = new TaskEventLog();
    const id = log.createTask();
    log.append(id, 'x');
    log.append(id, 'x');
    const o = log.openStream({ taskId: id, after: 1 });
    if (!o.ok) throw new Error('refused');
    const next = o.events.next();
    await Promise.resolve();
    log.trim(id, 5);
    log.append(id, 'x'); // seq 2 was never issued before: nothing was lost for this reader
    expect((await next).value?.seq).toBe(2);
  });
});

describe('openStream: every refusal, with its code and words', () => {
  const log = new TaskEventLog();
  const id = log.createTask();
  log.append(id, 'x');
  log.append(id, 'x');
  log.append(id, 'x');
  log.complete(id);
  const refused = (message: string) => ({ error: { code: INVALID_PARAMS, message } });

  test('params must be an object', async () => {
    for (const params of ['x', 5, null, [id], undefined]) {
      expect(await open(log, params), String(params)).toEqual(
        refused('tasks/stream params must be an object'),
      );
    }
  });

  test('taskId must be a non-empty string naming a task', async () => {
    for (const taskId of ['', 5, undefined, null]) {
      expect(await open(log, { taskId }), String(taskId)).toEqual(
        refused('tasks/stream taskId must be a non-empty string'),
      );
    }
    expect(await open(log, { taskId: 'nope' })).toEqual(refused('unknown task "nope"'));
  });

  test('after must be a non-negative integer up to the last event; null is no after', async () => {
    for (const after of [-1, 1.5, '1', true, {}]) {
      expect(await open(log, { taskId: id, after }), String(after)).toEqual(
        refused(`tasks/stream after must be a non-negative integer, got ${String(after)}`),
      );
    }
    expect(await open(log, { taskId: id, after: 3 })).toEqual(
      refused('tasks/stream after 3 is beyond the last event of the task (2)'),
    );
    expect(await open(log, { taskId: id, after: null })).toEqual({ events: [0, 1, 2] });
    expect(await open(log, { taskId: id, after: 2 })).toEqual({ events: [] });
    expect(await open(log, { taskId: id, after: 0 })).toEqual({ events: [1, 2] });
  });
});

describe('a live reader and its signal', () => {
  test('an abort ends a waiting reader; the listener it waits with is removed once woken', async () => {
    const log = new TaskEventLog();
    const id = log.createTask();
    const abort = new AbortController();
    const o = log.openStream({ taskId: id }, abort.signal);
    if (!o.ok) throw new Error('refused');
    const first = o.events.next();
    await Promise.resolve();
    expect(getEventListeners(abort.signal, 'abort')).toHaveLength(1);
    log.append(id, 'x');
    expect((await first).value?.seq).toBe(0);
    const second = o.events.next();
    await Promise.resolve();
    // Woken by the append, the first wait's listener is gone: one listener, the second wait's.
    expect(getEventListeners(abort.signal, 'abort')).toHaveLength(1);
    abort.abort();
    expect(await second).toEqual({ done: true, value: undefined });
    expect(getEventListeners(abort.signal, 'abort')).toHaveLength(0);
    // An aborted reader still gets what is retained first, then ends.
    log.append(id, 'x');
    const again = log.openStream({ taskId: id }, abort.signal);
    if (!again.ok) throw new Error('refused');
    expect(await drain(again.events)).toEqual([0, 1]);
  });
});

describe('errors', () => {
  test('EventsGoneError: name, words, fields, and its JSON-RPC error', () => {
    const e = new EventsGoneError('t', 7);
    expect([e.name, e.message, e.taskId, e.earliestSeq]).toEqual([
      'EventsGoneError',
      'task t: events before 7 are no longer retained',
      't',
      7,
    ]);
    expect(e.toJsonRpc()).toEqual({
      code: -32010,
      message: 'Task events are no longer available',
      data: { reason: 'events_gone', taskId: 't', earliestSeq: 7 },
    });
    expect([EVENTS_GONE_CODE, INVALID_PARAMS]).toEqual([-32010, -32602]);
  });

  test('isEventsGone reads data.reason only, and never throws', () => {
    expect(isEventsGone(new EventsGoneError('t', 1).toJsonRpc())).toBe(true);
    expect(isEventsGone({ code: 1, data: { reason: 'events_gone' } })).toBe(true);
    for (const other of [
      null,
      undefined,
      {},
      { data: null },
      { data: 'events_gone' },
      { data: { reason: 'other' } },
      { code: -32010, message: 'Task events are no longer available' },
    ]) {
      expect(isEventsGone(other), JSON.stringify(other)).toBe(false);
    }
  });
});
