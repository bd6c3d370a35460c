/**
 * A trace of several tasks is judged per task (src/trace/task-partition.ts): each task by its
 * own machine, in one report. Real clients with two task streams record one trace in which both
 * interleave; `check --binding mcp-tasks` once refused it (exit 2, "split it into one trace per
 * task"). The property: two one-task traces, interleaved at random, are judged as each alone.
 * A checker that reads the trace with one machine (the binding without its partition, the old
 * reading) fails it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mcpTasks, type Binding } from '../../model/bindings/index.js';
import { checkTrace, MAX_TASKS, type CheckReport } from '../../src/trace/index.js';
import { announceSeed } from '../support/seed.js';
import { params } from './grammar.js';
import { checkText } from './helpers.js';

announceSeed('properties/trace/tasks-partition.test.ts');

const HEAD = '{"type":"binding","name":"mcp-tasks"}';
const call = (task: string, after?: number) =>
  JSON.stringify({ type: 'tasks/stream', taskId: task, ...(after === undefined ? {} : { after }) });
const ev = (task: string, seq: number) =>
  JSON.stringify({ type: 'tasks/event', taskId: task, seq });
const line = (type: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ type, ...extra });

/** t1 streams seq 0 and 1, breaks and resumes after 1; t2 is called and sends seq 0. */
const T1_RESUME_PENDING_T2_CALLED = [
  HEAD,
  call('t1'),
  ev('t1', 0),
  ev('t1', 1),
  line('disconnect'),
  call('t1', 1),
  call('t2'),
  ev('t2', 0),
];

describe('two tasks in one trace', () => {
  it('the traces once refused as "a second task" get verdicts, each task judged by its own machine', async () => {
    // A resume of t1 pending while t2 is called; t1's seq 2 proves it.
    const pending = await checkTrace([
      ...T1_RESUME_PENDING_T2_CALLED,
      ev('t1', 2),
      line('decision', { outcome: 'resumed' }),
    ]);
    expect(pending.reconnects.map((r) => [r.line, r.stream, r.expected, r.verdict])).toEqual([
      [6, 't1', 'resumed', 'ok'],
    ]);
    expect([pending.breaks, pending.exitCode]).toEqual([[], 0]);
    // Side by side: each task's seqs are contiguous on their own.
    const sideBySide = await checkTrace([
      HEAD,
      call('t1'),
      call('t2'),
      ev('t1', 0),
      ev('t2', 0),
      ev('t1', 1),
      ev('t2', 1),
    ]);
    expect([sideBySide.breaks, sideBySide.exitCode]).toEqual([[], 0]);
  });

  it("a call of one task while another task's resume is pending leaves that resume to its own judge", async () => {
    // t2's call comes between t1's resume and t1's first event; t1's first event skips seq 2.
    const report = await checkTrace([
      ...T1_RESUME_PENDING_T2_CALLED,
      ev('t2', 1),
      ev('t2', 2),
      ev('t1', 3),
      line('decision', { outcome: 'resumed' }),
    ]);
    expect(report.reconnects.map((r) => [r.stream, r.expected, r.code, r.verdict])).toEqual([
      ['t1', 'resumption-failed', 'skip', 'unsafe-accept'],
    ]);
    expect(report.exitCode).toBe(1);
  });

  it('a line that names no task where two could own it is bad input: one line, its number, exit 2', async () => {
    for (const [lines, message] of [
      [
        [HEAD, call('t1'), call('t2'), line('tasks/result')],
        /^check: <stdin>: line 4: a tasks\/result line names no task, and the calls of tasks "t1", "t2" are open; .*add "taskId"/,
      ],
      [
        [HEAD, call('t1'), call('t2'), line('disconnect')],
        /^check: <stdin>: line 4: a disconnect line names no task/,
      ],
      [
        [
          HEAD,
          call('t1'),
          ev('t1', 0),
          call('t2'),
          ev('t2', 0),
          line('disconnect', { taskId: 't1' }),
          line('disconnect', { taskId: 't2' }),
          call('t1', 0),
          call('t2', 0),
          line('decision', { outcome: 'resumed' }),
        ],
        /^check: <stdin>: line 10: a decision line names no task, and the resumes of tasks "t1", "t2" await a decision/,
      ],
      [
        [HEAD, call('t1'), call('t2'), ev('t3', 0)],
        /^check: <stdin>: line 4: tasks\/event of task "t3", which no tasks\/stream of this trace called/,
      ],
      [[HEAD, call('t1'), line('keepalive', { taskId: 5 })], /line 3: keepalive taskId must be/],
    ] as const) {
      const r = await checkText(lines.join('\n'));
      expect(r.code, lines.join(' ')).toBe(2);
      expect(r.out).toBe('');
      expect(r.err.trim().split('\n')).toHaveLength(1);
      expect(r.err.trim()).toMatch(message);
    }
  });

  it('an error answer that says its task in its data settles which open call it answers', async () => {
    const report = await checkTrace([
      HEAD,
      call('t1'),
      ev('t1', 0),
      line('disconnect', { taskId: 't1' }),
      call('t2'),
      call('t1', 0),
      JSON.stringify({
        type: 'tasks/error',
        error: { code: -32010, data: { reason: 'events_gone', taskId: 't1', earliestSeq: 5 } },
      }),
    ]);
    expect(report.reconnects.map((r) => [r.stream, r.expected, r.code])).toEqual([
      ['t1', 'resumption-failed', 'cursor-below-floor'],
    ]);
  });

  it(`more than ${MAX_TASKS} tasks in one trace are refused with one line, not held without bound`, async () => {
    const lines = [HEAD];
    for (let i = 0; i <= MAX_TASKS; i++) lines.push(call(`t${i}`));
    const r = await checkText(lines.join('\n'));
    expect(r.code).toBe(2);
    expect(r.err.trim()).toBe(
      `check: <stdin>: line ${MAX_TASKS + 2}: more than ${MAX_TASKS} tasks in one trace: check keeps a machine for each task to the end (a later call is judged from what came before), and refuses more rather than grow without bound; split the trace`,
    );
    // At the bound, every task is judged.
    const report = await checkTrace(lines.slice(0, -1));
    expect(report.exitCode).toBe(0);
  });
});

/** One fact of a one-task trace; every line names the task. */
const fact = (task: string) =>
  fc.oneof(
    fc
      .option(fc.nat(6), { nil: undefined })
      .map((after) => ({ type: 'tasks/stream', taskId: task, after })),
    {
      arbitrary: fc.nat(8).map((seq) => ({ type: 'tasks/event', taskId: task, seq })),
      weight: 5,
    },
    fc.constant({ type: 'tasks/result', taskId: task }),
    fc.nat(10).map((earliestSeq) => ({
      type: 'tasks/error',
      taskId: task,
      error: { code: -32010, data: { reason: 'events_gone', earliestSeq } },
    })),
    fc.constant({ type: 'disconnect', taskId: task }),
    fc.constant({ type: 'keepalive', taskId: task }),
    fc.constant({ type: 'idle-timeout', taskId: task }),
    fc
      .constantFrom('resumed', 'delayed', 'resumption-failed', 'session-lost')
      .map((outcome) => ({ type: 'decision', taskId: task, outcome })),
  );

const oneTask = (task: string) =>
  fc
    .array(fact(task), { maxLength: 14 })
    .map((facts) =>
      [{ type: 'tasks/stream', taskId: task }, ...facts].map((f) => JSON.stringify(f)),
    );

/** What a report judged of one task, without line numbers (the merged trace's differ). */
function judgementOf(r: CheckReport, task: string) {
  return {
    reconnects: r.reconnects
      .filter((x) => x.stream === task)
      .map((x) => [x.cursor, x.after, x.expected, x.code, x.actual, x.verdict]),
    breaks: r.breaks.filter((b) => b.stream === task).map((b) => [b.expected, b.got]),
    cursorAhead: r.cursorAhead.filter((c) => c.stream === task).map((c) => [c.cursor]),
  };
}

async function outcome(lines: string[], binding: Binding) {
  return checkTrace([HEAD, ...lines], { binding }).catch((e: Error) => e);
}

const interleavedAsAlone = (binding: Binding) =>
  fc.asyncProperty(
    oneTask('a'),
    oneTask('b'),
    fc.array(fc.boolean(), { maxLength: 40 }),
    async (a, b, picks) => {
      const merged: string[] = [];
      let i = 0;
      let j = 0;
      for (const pick of picks) {
        if (pick && i < a.length) merged.push(a[i++]!);
        else if (j < b.length) merged.push(b[j++]!);
      }
      merged.push(...a.slice(i), ...b.slice(j));
      const alone = [await outcome(a, mcpTasks), await outcome(b, mcpTasks)];
      const got = await outcome(merged, binding);
      if (alone.some((r) => r instanceof Error)) {
        // Bad input in either task is bad input in the trace.
        expect(got).toBeInstanceOf(Error);
        return;
      }
      expect(got).not.toBeInstanceOf(Error);
      const report = got as CheckReport;
      expect(judgementOf(report, 'a')).toEqual(judgementOf(alone[0] as CheckReport, 'a'));
      expect(judgementOf(report, 'b')).toEqual(judgementOf(alone[1] as CheckReport, 'b'));
      const exit = Math.max(...alone.map((r) => (r as CheckReport).exitCode));
      expect(report.exitCode).toBe(exit);
    },
  );

describe('two one-task traces interleaved', () => {
  it('are judged as each trace alone: same reconnects, breaks, cursors ahead and exit', async () => {
    await fc.assert(interleavedAsAlone(mcpTasks), params(300));
  });

  it('the property kills a checker that reads every task with one machine', async () => {
    const oneMachine: Binding = { ...mcpTasks, partitionBy: undefined };
    const result = await fc.check(interleavedAsAlone(oneMachine), { ...params(300), verbose: 0 });
    expect(result.failed).toBe(true);
  });
});
