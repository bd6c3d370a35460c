/**
 * A property of the task-stream binding over generated task traces: a duplicate (a repeat of an
 * event of the task streamed) changes no judgement. It proves nothing, breaks nothing and
 * extends nothing: every reconnect keeps its expected outcome and reason code, and the breaks and
 * cursors ahead stay the same. The two duplicate mutants of model/mutants/binding-mutants.ts
 * fail it; a test asserts that.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Binding } from '../../model/bindings/binding.js';
import { mcpTasks } from '../../model/bindings/mcp-tasks.js';
import { BINDING_MUTANTS } from '../../model/mutants/binding-mutants.js';
import { checkTrace, type CheckReport } from '../../src/trace/index.js';
import { announceSeed } from '../support/seed.js';
import { params } from './grammar.js';

announceSeed('properties/trace/tasks-binding.property.test.ts');

const task = fc.constantFrom('t1', 't1', 't1', 't2');

/** One wire fact of a task trace, with `dup`: whether a repeat of it is inserted after it. */
const fact = fc.oneof(
  // The calls of one task (several are judged per task: tasks-partition.test.ts); t2 only sends
  // events, the receiver's misrouted ones.
  fc.record({
    type: fc.constant('tasks/stream'),
    taskId: fc.constant('t1'),
    after: fc.option(fc.nat(6), { nil: undefined }),
  }),
  {
    arbitrary: fc.record({ type: fc.constant('tasks/event'), taskId: task, seq: fc.nat(8) }),
    weight: 4,
  },
  fc.constant({ type: 'tasks/result' }),
  fc.record({
    type: fc.constant('tasks/error'),
    status: fc.constantFrom(200, 410),
    error: fc.record({
      code: fc.constant(-32010),
      data: fc.record({ reason: fc.constant('events_gone'), earliestSeq: fc.nat(10) }),
    }),
  }),
  fc.constant({ type: 'tasks/error', error: { code: -32602 } }),
  fc.constant({ type: 'disconnect' }),
  fc.constant({ type: 'keepalive' }),
);

const taskTrace = fc.array(fc.tuple(fact, fc.boolean()), { maxLength: 30 });

type Fact = Record<string, unknown>;

/**
 * The trace's lines, and the same with a repeat after every marked event of the task streamed
 * (the task of the latest call): a duplicate by construction, whatever the binding's state.
 */
function withAndWithoutDuplicates(trace: [Fact, boolean][]): [string[], string[]] {
  const head = '{"type":"binding","name":"mcp-tasks"}';
  const plain = [head];
  const duplicated = [head];
  let streamed: unknown = null;
  for (const [f, dup] of trace) {
    if (f['type'] === 'tasks/stream') streamed = f['taskId'];
    const line = JSON.stringify(f);
    plain.push(line);
    duplicated.push(line);
    if (dup && f['type'] === 'tasks/event' && f['taskId'] === streamed) duplicated.push(line);
  }
  return [plain, duplicated];
}

/** A report without line numbers: what was judged, not where. */
function judgement(r: CheckReport) {
  return {
    reconnects: r.reconnects.map((x) => [x.cursor, x.stream, x.expected, x.code]),
    breaks: r.breaks.map((b) => [b.expected, b.got]),
    cursorAhead: r.cursorAhead.map((c) => [c.cursor, c.lastReceived]),
    exitCode: r.exitCode,
  };
}

const duplicatesChangeNothing = (binding: Binding) =>
  fc.asyncProperty(taskTrace, async (trace) => {
    const [plain, duplicated] = withAndWithoutDuplicates(trace);
    const a = await checkTrace(plain, { binding });
    const b = await checkTrace(duplicated, { binding });
    expect(judgement(b)).toEqual(judgement(a));
  });

describe('mcp-tasks on generated task traces', () => {
  it('a duplicate changes no judgement (and no trace of the vocabulary throws)', async () => {
    await fc.assert(duplicatesChangeNothing(mcpTasks), params(300));
  });

  it.each(
    BINDING_MUTANTS.filter((m) => m.rules.duplicate !== 'drop').map((m) => [m.name, m] as const),
  )('the property kills %s', async (_name, m) => {
    const result = await fc.check(duplicatesChangeNothing(m.binding), {
      ...params(3000),
      verbose: 0,
    });
    expect(result.failed).toBe(true);
  });
});
