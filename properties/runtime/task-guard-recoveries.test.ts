/**
 * taskStreamGuard across two recoveries without `after` (issue 38), driven directly: a resume
 * gets `events_gone` with `earliestSeq` 100; the application recovers (SEP-2694: "call
 * tasks/stream ... without after to receive all retained events") and calls without `after`,
 * receiving 100..105; after a break it calls without `after` again, and the receiver, now trimmed
 * to 106, sends 106. That call is judged from seq 105, not 99: resumed, and 106 is handed on.
 * The oracle judges the guard's own trace the same way. A guard built outside src/runtime/
 * that judges from `earliestSeq - 1` fails the call as a skip: the test kills it.
 */
import { describe, expect, test } from 'vitest';
import {
  taskStreamGuard,
  TaskStreamResumptionError,
  type TaskStreamGuard,
  type TaskStreamGuardOptions,
  type TaskStreamItem,
  type TaskTraceLine,
} from '../../src/runtime/index.js';
import { recoversFromEarliestSeqGuard } from '../../src/runtime-mutants/task-guard-mutants.js';
import { checkTrace } from '../../src/trace/check.js';

const T = 'task-1';
const event = (seq: number): TaskStreamItem => ({
  status: 200,
  message: {
    jsonrpc: '2.0',
    method: 'notifications/tasks/event',
    params: { seq, taskId: T, type: 'com.example.step', payload: { n: seq } },
  },
});
const RESULT: TaskStreamItem = { status: 200, message: { jsonrpc: '2.0', id: 1, result: {} } };
const GONE_100: TaskStreamItem = {
  status: 200,
  message: {
    jsonrpc: '2.0',
    id: 1,
    error: {
      code: -32010,
      message: 'Task events are no longer available',
      data: { reason: 'events_gone', taskId: T, earliestSeq: 100 },
    },
  },
};

/** An answer of `items` that then ends without a result (a break). */
async function* answer(items: TaskStreamItem[]): AsyncGenerator<TaskStreamItem> {
  for (const item of items) {
    await Promise.resolve();
    yield item;
  }
}

/** Follows one call: the seqs handed on, and the error it ended with (or null). */
async function follow(guard: TaskStreamGuard, after: number | undefined, items: TaskStreamItem[]) {
  const handed: number[] = [];
  const params = after === undefined ? { taskId: T } : { taskId: T, after };
  try {
    for await (const e of guard.follow(params, answer(items))) handed.push(e.seq);
    return { handed, error: null as unknown };
  } catch (e) {
    return { handed, error: e };
  }
}

/** The issue's sequence through `make`'s guard; the last call's outcome and the guard's trace. */
async function twoRecoveries(make: (o: TaskStreamGuardOptions) => TaskStreamGuard) {
  const trace: TaskTraceLine[] = [];
  const guard = make({ onTrace: (line) => void trace.push(line) });
  expect(await follow(guard, undefined, [event(0), event(1)])).toEqual({
    handed: [0, 1],
    error: null,
  });
  const gone = await follow(guard, 1, [GONE_100]);
  expect(gone.error).toBeInstanceOf(TaskStreamResumptionError);
  // SEP-2694's recovery: the gap is accepted, and the next call goes without after.
  expect(guard.recover(T)).toBe(99);
  const first = await follow(guard, undefined, [100, 101, 102, 103, 104, 105].map(event));
  expect(first).toEqual({ handed: [100, 101, 102, 103, 104, 105], error: null });
  expect(guard.cursor(T)).toBe(105);
  // After the break, without after again; the receiver now retains 106 onwards.
  const second = await follow(guard, undefined, [event(106), RESULT]);
  return { second, trace };
}

describe('taskStreamGuard: two recoveries without after', () => {
  test('the second call is judged from seq 105, the last handed on: 106 is handed on, no skip', async () => {
    const { second, trace } = await twoRecoveries(taskStreamGuard);
    expect(second).toEqual({ handed: [106], error: null });
    // The oracle, on the guard's own trace, agrees: every resume ok, the last resumed from 105.
    const report = await checkTrace(trace.map((l) => JSON.stringify(l)));
    expect(report.reconnects.map((r) => [r.cursor, r.expected, r.verdict])).toEqual([
      [1, 'resumption-failed', 'ok'],
      [99, 'resumed', 'ok'],
      [105, 'resumed', 'ok'],
    ]);
    expect(report.exitCode).toBe(0);
  });

  test('kills a guard that judges every recovery from earliestSeq - 1 (a false alarm: a skip)', async () => {
    const { second } = await twoRecoveries(recoversFromEarliestSeqGuard);
    expect(second.handed).toEqual([]);
    expect(second.error).toBeInstanceOf(TaskStreamResumptionError);
    expect((second.error as TaskStreamResumptionError).code).toBe('skip');
  });
});
