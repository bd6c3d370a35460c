/**
 * The TaskEventLog contract (SEP-2694's receiver side), in the style of the store contract
 * suite: no task id issued twice; every event numbered from 0, +1 each, never renumbered; every
 * cursor replayed exactly (every retained event after it, in order, then live ones) or refused
 * with events_gone naming the earliest retained event; never another task's events; an invalid
 * `after` refused with -32602; a live reader that falls behind retention refused, not skipped.
 * Then the same over loopback HTTP through taskStreamHandler.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  EVENTS_GONE_CODE,
  EventsGoneError,
  fetchTaskStream,
  TaskEventLog,
  TaskLogCapacityError,
  taskStreamHandler,
  type TaskEvent,
  type TaskEventLogOptions,
} from '../../src/runtime/index.js';
import { mutantTaskLog, TASK_SERVER_MUTANTS } from '../../src/conformance/task-reference.js';
import { serveFetch } from '../../src/conformance/fetch-host.js';
import { announceSeed, runs } from '../support/seed.js';

const seed = announceSeed('properties/runtime/task-event-log.test.ts');

/** Every event a stream yields until the task's events run out (the task is complete). */
async function drain(events: AsyncGenerator<TaskEvent, void, undefined>): Promise<TaskEvent[]> {
  const out: TaskEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

const op = fc.oneof(
  fc.record({
    kind: fc.constant('append' as const),
    task: fc.nat(2),
    n: fc.integer({ min: 1, max: 6 }),
  }),
  fc.record({
    kind: fc.constant('open' as const),
    task: fc.nat(2),
    after: fc.option(fc.integer({ min: -2, max: 25 }), { nil: undefined }),
  }),
);

/**
 * The contract as a property over random appends (past retention) and cursors, for the log
 * `make` builds.
 */
const contract = (make: (o: TaskEventLogOptions) => TaskEventLog) =>
  fc.asyncProperty(
    fc.array(op, { maxLength: 40 }),
    fc.integer({ min: 1, max: 8 }),
    async (ops, cap) => {
      const log = make({ maxEventsPerTask: cap });
      const tasks = [log.createTask(), log.createTask(), log.createTask()];
      /** Every event ever appended, per task: the truth a replay must match. */
      const truth: TaskEvent[][] = [[], [], []];
      for (const o of ops) {
        const taskId = tasks[o.task]!;
        if (o.kind === 'append') {
          for (let i = 0; i < o.n; i++) {
            const e = log.append(taskId, 'com.example.step', { i: truth[o.task]!.length });
            expect(e.seq).toBe(truth[o.task]!.length); // from 0, +1 each
            truth[o.task]!.push(e);
          }
          continue;
        }
        const all = truth[o.task]!;
        const earliest = Math.max(0, all.length - cap);
        const ac = new AbortController();
        const opening = log.openStream(
          o.after === undefined ? { taskId } : { taskId, after: o.after },
          ac.signal,
        );
        const a = o.after;
        if (a !== undefined && (a < 0 || a >= all.length)) {
          expect(opening.ok ? 'opened' : opening.error.code).toBe(-32602);
          continue;
        }
        if (a !== undefined && a + 1 < earliest) {
          expect(opening.ok).toBe(false);
          if (!opening.ok) {
            expect(opening.error.code).toBe(EVENTS_GONE_CODE);
            expect(opening.error.data).toEqual({
              reason: 'events_gone',
              taskId,
              earliestSeq: earliest,
            });
          }
          continue;
        }
        expect(opening.ok).toBe(true);
        if (!opening.ok) continue;
        const from = a === undefined ? earliest : a + 1;
        // Aborted: what is retained is sent, then the stream stops instead of waiting live.
        ac.abort();
        const got = await drain(opening.events);
        expect(got).toEqual(all.slice(from)); // exactly the retained ones, same numbers
      }
    },
  );

describe('contract: TaskEventLog', () => {
  test('no task id is issued twice, within a log, across logs, and after finished tasks are forgotten', () => {
    const ids = new Set<string>();
    for (let l = 0; l < 3; l++) {
      const log = new TaskEventLog({ maxTasks: 4 });
      for (let i = 0; i < 40; i++) {
        const id = log.createTask();
        expect(ids.has(id), `id ${id} issued twice`).toBe(false);
        ids.add(id);
        log.complete(id); // finished: the next create past maxTasks forgets the oldest
      }
    }
  });

  test('a full log of running tasks refuses one more task instead of forgetting a running one', () => {
    const log = new TaskEventLog({ maxTasks: 2 });
    const a = log.createTask();
    log.createTask();
    expect(() => log.createTask()).toThrow(TaskLogCapacityError);
    log.complete(a);
    expect(() => log.createTask()).not.toThrow();
    expect(log.describe(a)).toBeUndefined();
  });

  test('every cursor is replayed exactly or refused with events_gone; never another task; never renumbered', async () => {
    await fc.assert(
      contract((o) => new TaskEventLog(o)),
      {
        seed,
        numRuns: runs(300),
        endOnFailure: true,
      },
    );
  });

  test.each(
    TASK_SERVER_MUTANTS.filter((m) => m.name !== 'bare-410').map(
      (m) => [m.name, m.description] as const,
    ),
  )('the contract property kills the log mutant %s (%s)', async (name) => {
    const result = await fc.check(
      contract((o) => mutantTaskLog(name, o)),
      { seed, numRuns: runs(300), endOnFailure: true },
    );
    expect(result.failed, `log mutant ${name} survived ${result.numRuns} runs (seed ${seed})`).toBe(
      true,
    );
    console.log(
      `[log mutant ${name}] killed after ${result.numRuns} runs: ${JSON.stringify(result.counterexample)}`,
    );
  });

  test('without after, a stream starts at the earliest retained event; a finished task ends after its events', async () => {
    const log = new TaskEventLog({ maxEventsPerTask: 3 });
    const id = log.createTask();
    for (let i = 0; i < 5; i++) log.append(id, 'com.example.step');
    log.complete(id);
    const o = log.openStream({ taskId: id });
    expect(o.ok).toBe(true);
    if (o.ok) expect((await drain(o.events)).map((e) => e.seq)).toEqual([2, 3, 4]);
    const last = log.openStream({ taskId: id, after: 4 });
    if (last.ok) expect(await drain(last.events)).toEqual([]);
  });

  test('invalid after: negative, not an integer, beyond the head, or on a task with no events yet', () => {
    const log = new TaskEventLog();
    const id = log.createTask();
    for (const after of [-1, 1.5, '3', true, {}, 0]) {
      const o = log.openStream({ taskId: id, after });
      expect(o.ok ? 'opened' : o.error.code, JSON.stringify(after)).toBe(-32602);
    }
    log.append(id, 'com.example.step');
    expect(log.openStream({ taskId: id, after: 1 }).ok).toBe(false);
    expect(log.openStream({ taskId: id, after: 0 }).ok).toBe(true);
    for (const params of [null, [], { taskId: '' }, { taskId: 'nope' }, 'x']) {
      const o = log.openStream(params);
      expect(o.ok ? 'opened' : o.error.code).toBe(-32602);
    }
  });

  test('a live reader that falls behind retention is refused with events_gone, not skipped', async () => {
    const log = new TaskEventLog({ maxEventsPerTask: 2 });
    const id = log.createTask();
    log.append(id, 'com.example.step');
    const o = log.openStream({ taskId: id, after: 0 });
    if (!o.ok) throw new Error('should open');
    const waiting = o.events.next();
    log.append(id, 'com.example.step'); // seq 1: wakes the reader
    expect((await waiting).value).toMatchObject({ seq: 1 });
    for (let i = 0; i < 4; i++) log.append(id, 'com.example.step'); // 2..5; 2 and 3 evicted
    await expect(o.events.next()).rejects.toBeInstanceOf(EventsGoneError);
  });

  test('live events reach an open stream in order; other tasks\u2019 events never do', async () => {
    const log = new TaskEventLog();
    const a = log.createTask();
    const b = log.createTask();
    const o = log.openStream({ taskId: a });
    if (!o.ok) throw new Error('should open');
    const got = drain(o.events);
    for (let i = 0; i < 5; i++) {
      log.append(a, 'com.example.a');
      log.append(b, 'com.example.b');
      await new Promise((r) => setImmediate(r));
    }
    log.complete(a);
    const events = await got;
    expect(events.map((e) => [e.taskId, e.seq])).toEqual([0, 1, 2, 3, 4].map((s) => [a, s]));
  });
});

describe('taskStreamHandler over loopback', () => {
  test('a stream, events_gone as a JSON-RPC error and as HTTP 410, -32602, -32601, a parse error', async () => {
    const log = new TaskEventLog({ maxEventsPerTask: 2 });
    const id = log.createTask();
    for (let i = 0; i < 4; i++) log.append(id, 'com.example.step', { i });
    log.complete(id);
    for (const eventsGoneStatus of [200, 410] as const) {
      const host = await serveFetch(taskStreamHandler(log, { eventsGoneStatus }));
      try {
        const items = async (params: { taskId: string; after?: number }) => {
          const out = [];
          for await (const item of fetchTaskStream(fetch, host.url, params)) out.push(item);
          return out;
        };
        const stream = await items({ taskId: id, after: 2 });
        expect(stream.map((i) => (i.message as { method?: string }).method ?? 'result')).toEqual([
          'notifications/tasks/event',
          'result',
        ]);
        expect(stream[0]!.message).toMatchObject({ params: { seq: 3, taskId: id } });
        const gone = await items({ taskId: id, after: 0 });
        expect(gone).toEqual([
          {
            status: eventsGoneStatus,
            message: expect.objectContaining({
              error: expect.objectContaining({
                code: EVENTS_GONE_CODE,
                data: { reason: 'events_gone', taskId: id, earliestSeq: 2 },
              }),
            }),
          },
        ]);
        const bad = await items({ taskId: id, after: -1 });
        expect(bad[0]).toMatchObject({ status: 200, message: { error: { code: -32602 } } });
        const other = await fetch(host.url, {
          method: 'POST',
          body: '{"jsonrpc":"2.0","id":1,"method":"tasks/nope"}',
        });
        expect(await other.json()).toMatchObject({ error: { code: -32601 } });
        const junk = await fetch(host.url, { method: 'POST', body: '{' });
        expect(await junk.json()).toMatchObject({ error: { code: -32700 } });
      } finally {
        await host.close();
      }
    }
  });
});
