/**
 * One decision core (issue 31, "a guard you can read"): the SSE guard (`GuardCore`) and the task
 * guard (`TaskGuardRuntime`) are adapters on `DecisionCore` (src/runtime/decision-core.ts),
 * which alone steps the machine, turns a step into decisions, keeps the clock and the trace,
 * and runs the proof budget. Two checks hold that, each shown to fail on a guard that
 * re-implements the decision path:
 *
 * - by structure: neither adapter (nor anything between it and the core) defines one of the
 *   core's own methods, so there is no second copy to drift;
 * - by behaviour: a failure raised through each guard's public entry (a skip on an SSE stream
 *   read through `continuityGuard`, a break (seq 1 skipped) on a task stream read through `taskStreamGuard`) is
 *   the error the core's `decide` returned, and `decide` ran on an instance of that adapter.
 */
import { assign } from 'xstate';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { clientMachine } from '../../model/client-machine.js';
import type { Observation } from '../../model/observations.js';
import { DecisionCore } from '../../src/runtime/decision-core.js';
import { GuardCore } from '../../src/runtime/guard-core.js';
import { MachineTrack } from '../../src/runtime/machine-track.js';
import type { Track } from '../../src/runtime/guard-track.js';
import {
  continuityGuard,
  StreamResumptionError,
  taskStreamGuard,
  type TaskStreamItem,
} from '../../src/runtime/index.js';
import { TaskGuardRuntime } from '../../src/runtime/task-guard-runtime.js';
import { scriptedFetch, sseResponse } from './scripted-fetch.js';

/** The core's own methods and accessors (its hooks for adapters excluded). */
const CORE_OWN = Object.getOwnPropertyNames(DecisionCore.prototype).filter(
  (name) => name !== 'constructor' && name !== 'beforeRunOut',
);

/**
 * The core's methods a class defines again, on itself or on any class between it and the
 * core; `['not a DecisionCore']` when the core is not among its ancestors.
 */
function redefined(cls: abstract new (...args: never[]) => unknown): string[] {
  const found: string[] = [];
  let proto: object | null = cls.prototype as object;
  while (proto !== null && proto !== DecisionCore.prototype) {
    for (const name of CORE_OWN) if (Object.hasOwn(proto, name)) found.push(name);
    proto = Object.getPrototypeOf(proto) as object | null;
  }
  return proto === null ? ['not a DecisionCore'] : found;
}

/** An SSE guard that decides by its own copy of the step (the duplication this test forbids). */
class OwnDecideGuardCore extends GuardCore {
  override decide(track: Track, o: Observation, why?: string): StreamResumptionError | null {
    const before = track.snapshot.value;
    const next = track.machine.step(o);
    if (next.value === before || next.value !== 'resumptionFailed') return null;
    return this.fail(track, new StreamResumptionError(why ?? 'own copy', 'break'));
  }
}

afterEach(() => {
  vi.restoreAllMocks();
});

/** Runs `go`, returning what it threw and the classes `DecisionCore.decide` ran on. */
async function throughCore(go: () => Promise<unknown>) {
  const decide = vi.spyOn(DecisionCore.prototype, 'decide');
  let thrown: unknown = null;
  try {
    await go();
  } catch (e) {
    thrown = e;
  }
  const on = new Set(decide.mock.contexts.map((c) => (c as object).constructor.name));
  const returned = decide.mock.results.map((r) => r.value as unknown);
  return { thrown, on, returned };
}

/** A task stream answered with the events `seqs` of task `t` (and nothing after them). */
function taskAnswer(seqs: number[], result = false): AsyncIterable<TaskStreamItem> {
  const items: TaskStreamItem[] = seqs.map((seq) => ({
    status: 200,
    message: {
      jsonrpc: '2.0',
      method: 'notifications/tasks/event',
      params: { taskId: 't', seq, type: 'step', payload: {} },
    },
  }));
  if (result) items.push({ status: 200, message: { jsonrpc: '2.0', id: 1, result: {} } });
  return (async function* () {
    yield* items;
  })();
}

/** A task stream answered with seq 0, then seq 2 (seq 1 skipped). */
const skippedTaskAnswer = () => taskAnswer([0, 2]);

/** The client machine, but every escalation comes without a reason (a machine passed in). */
const reasonless = clientMachine.provide({
  actions: {
    decide: assign((_: unknown, params: { outcome: string }) => ({
      outcome: params.outcome,
      reason: null,
    })) as never,
  },
});

describe('both guards decide through the one decision core', () => {
  test('neither adapter defines a method of the core again', () => {
    expect(CORE_OWN).toEqual(
      expect.arrayContaining(['decide', 'emit', 'now', 'budgetRunsOut', 'armBudget']),
    );
    expect(redefined(GuardCore)).toEqual([]);
    expect(redefined(TaskGuardRuntime)).toEqual([]);
  });

  test('the structural check fails on an adapter with its own decide', () => {
    expect(redefined(OwnDecideGuardCore)).toEqual(['decide']);
    class Apart {
      decide() {
        return null;
      }
    }
    expect(redefined(Apart)).toEqual(['not a DecisionCore']);
  });

  test("the SSE guard's failure is the core's decision", async () => {
    const { fetch } = scriptedFetch(() => sseResponse('id: 1\ndata: a\n\nid: 3\ndata: c\n\n'));
    const guarded = continuityGuard(fetch);
    const run = await throughCore(async () => {
      const res = await guarded('http://127.0.0.1:9/mcp', {
        method: 'GET',
        headers: { accept: 'text/event-stream' },
      });
      await res.text();
    });
    expect(run.thrown).toBeInstanceOf(StreamResumptionError);
    expect(run.on).toEqual(new Set(['GuardCore']));
    expect(run.returned).toContain(run.thrown);
  });

  test("the task guard's failure is the core's decision", async () => {
    const guard = taskStreamGuard();
    const run = await throughCore(async () => {
      for await (const e of guard.follow({ taskId: 't' }, skippedTaskAnswer())) void e;
    });
    expect(run.thrown).toBeInstanceOf(StreamResumptionError);
    expect((run.thrown as StreamResumptionError).code).toBe('break');
    expect(run.on).toEqual(new Set(['TaskGuardRuntime']));
    expect(run.returned).toContain(run.thrown);
  });

  test('the behavioural check fails on an adapter with its own decide', async () => {
    const core = new OwnDecideGuardCore({});
    const run = await throughCore(() => {
      const track = core.newTrack(null);
      core.record(track, { type: 'open', status: 200 });
      core.record(track, { type: 'event', id: 1 });
      const e = core.record(track, { type: 'event', id: 3 });
      return Promise.reject(e);
    });
    expect(run.thrown).toBeInstanceOf(StreamResumptionError);
    // The failure came from the adapter's own copy: the core decided nothing.
    expect(run.on).toEqual(new Set());
    expect(run.returned).not.toContain(run.thrown);
  });

  test('the core takes the fast path for the successor: a long stream costs a few machine steps', async () => {
    const step = vi.spyOn(MachineTrack.prototype, 'step');
    const guard = taskStreamGuard();
    const seqs = Array.from({ length: 200 }, (_, i) => i);
    const handed: number[] = [];
    for await (const e of guard.follow({ taskId: 't' }, taskAnswer(seqs, true))) handed.push(e.seq);
    expect(handed).toEqual(seqs);
    // The OPEN, the first two events (the second shows the pure cursor step), the result.
    expect(step.mock.calls.length).toBeLessThan(10);
  });

  test('an escalation without a reason fails as unproven, in both guards', async () => {
    const { fetch } = scriptedFetch(() => sseResponse('id: 1\ndata: a\n\nid: 3\ndata: c\n\n'));
    const guarded = continuityGuard(fetch, { machine: reasonless });
    const res = await guarded('http://127.0.0.1:9/mcp', {
      method: 'GET',
      headers: { accept: 'text/event-stream' },
    });
    const sse = await res.text().then(
      () => null,
      (e: unknown) => e,
    );
    expect(sse).toBeInstanceOf(StreamResumptionError);
    expect((sse as StreamResumptionError).code).toBe('unproven');
    expect((sse as StreamResumptionError).message).toBe('continuity cannot be proven');
    const guard = taskStreamGuard({ machine: reasonless });
    let task: unknown = null;
    try {
      for await (const e of guard.follow({ taskId: 't' }, skippedTaskAnswer())) void e;
    } catch (e) {
      task = e;
    }
    expect(task).toBeInstanceOf(StreamResumptionError);
    expect((task as StreamResumptionError).code).toBe('unproven');
    expect((task as StreamResumptionError).message).toContain('continuity cannot be proven');
  });

  test('a decision line carries the time of the line that led to it, in both guards', async () => {
    // Every read of the clock moves it on: a decision timed by a fresh read would show it.
    let clock = 1_000_000;
    vi.spyOn(Date, 'now').mockImplementation(() => (clock += 7));
    const sse: Record<string, unknown>[] = [];
    const core = new GuardCore({ onTrace: (l) => void sse.push(l) });
    const track = core.newTrack(null);
    core.record(track, { type: 'open', status: 200 });
    core.event(track, 1, undefined, false);
    core.streamEnded(track, false);
    expect(core.reconnect(track, '1', false)).toBeNull();
    core.record(track, { type: 'response', status: 200 });
    expect(core.event(track, 2, undefined, false)).toBeNull();
    const task: Record<string, unknown>[] = [];
    const guard = taskStreamGuard({ onTrace: (l) => void task.push(l) });
    for await (const e of guard.follow({ taskId: 't' }, taskAnswer([0, 1]))) void e;
    for await (const e of guard.follow({ taskId: 't', after: 1 }, taskAnswer([2], true))) void e;
    for (const lines of [sse, task]) {
      const decided = lines.flatMap((l, i) =>
        l['type'] === 'decision' ? [[l, lines[i - 1]]] : [],
      );
      expect(decided.map(([d]) => d!['outcome'])).toEqual(['resumed']);
      for (const [d, before] of decided) expect(d!['t']).toBe(before!['t']);
    }
  });

  test("a task follow that ended keeps no hold on its answer (the budget's giveUp is released)", async () => {
    const rt = new TaskGuardRuntime({});
    const answer = taskAnswer([0, 1], true);
    for await (const e of rt.follow({ taskId: 't' }, answer)) void e;
    // The callback would end a read that is over, and keeps the answer's reader alive.
    expect(rt.tracks.get('t')!.giveUp).toBeUndefined();
  });

  test("an untraced guard reads no clock for a first stream's lines", () => {
    const core = new GuardCore({});
    const now = vi.spyOn(Date, 'now');
    const track = core.newTrack(null);
    expect(core.record(track, { type: 'open', status: 200 })).toBeNull();
    expect(core.event(track, 1, undefined, false)).toBeNull();
    expect(core.event(track, 2, undefined, false)).toBeNull();
    // (The third event takes the machine's fast path: the cursor step before it was pure.)
    expect(core.event(track, 3, undefined, false)).toBeNull();
    expect(core.record(track, { type: 'end' })).toBeNull();
    // Nothing is budgeted and nothing is written: no time is used, so none is read.
    expect(now).not.toHaveBeenCalled();
  });
});
