/**
 * The scenarios of `conformance --binding mcp-tasks`: what a server that speaks SEP-2694's
 * `tasks/stream` must do, checked through the language-neutral task contract (plain JSON-RPC
 * POSTs to the URL: `tasks/stream` and the control methods of {@link TASK_CONTROL}). Each
 * scenario makes its own task, drives it, and compares what came back with what SEP-2694
 * requires; resumes are also followed by taskStreamGuard, whose recorded trace the oracle
 * judges (`check --binding mcp-tasks`), so that a scenario says both what the server did and
 * what a fail-closed client made of it.
 */
import { isEventsGone } from '../../runtime/task-event-log.js';
import { fetchTaskStream } from '../../runtime/task-stream-fetch.js';
import { taskStreamGuard, type TaskTraceLine } from '../../runtime/task-stream-guard.js';
import { StreamResumptionError } from '../../reference.js';
import { checkTrace } from '../../trace/check.js';
import { TASK_CONTROL } from '../task-reference.js';

/** The outcome of one scenario. */
export interface TaskScenarioResult {
  scenario: string;
  /** `pass`: as SEP-2694 requires; `fail`: not; `error`: the harness could not run it. */
  verdict: 'pass' | 'fail' | 'error';
  /** What happened, in one line. */
  detail: string;
  ms: number;
}

/** A scenario's failure: the server did not do what SEP-2694 requires. */
class Finding extends Error {}

interface Ctx {
  url: string;
  timeoutMs: number;
}

let nextControlId = 1;

/** A control call; its failure is the harness's (`error`), not a finding. */
async function control(ctx: Ctx, method: string, params: Record<string, unknown>) {
  const r = await fetch(ctx.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: `ctl-${nextControlId++}`, method, params }),
    signal: AbortSignal.timeout(ctx.timeoutMs),
  });
  const body = (await r.json().catch(() => null)) as {
    result?: Record<string, unknown>;
    error?: { message?: string };
  } | null;
  if (!r.ok || !body || body.result === undefined) {
    throw new Error(
      `control ${method}: ${r.status} ${body?.error?.message ?? 'no JSON-RPC result'}`,
    );
  }
  return body.result;
}

async function newTask(ctx: Ctx, events: number, complete: boolean): Promise<string> {
  const { taskId } = await control(ctx, TASK_CONTROL.create, {});
  if (typeof taskId !== 'string') throw new Error(`${TASK_CONTROL.create}: no taskId`);
  if (events > 0) await control(ctx, TASK_CONTROL.emit, { taskId, count: events });
  if (complete) await control(ctx, TASK_CONTROL.complete, { taskId });
  return taskId;
}

/** What one call received: events (taskId, seq), how it ended, and an error answer if any. */
interface Answer {
  events: { taskId: unknown; seq: unknown }[];
  end: 'result' | 'error' | 'broken' | 'timeout' | 'enough';
  status: number;
  error?: unknown;
}

/**
 * Calls tasks/stream and reads the answer until its result, an error, a break, `count` events
 * (then aborts: a live stream), or the timeout.
 */
async function call(ctx: Ctx, params: Record<string, unknown>, count = Infinity): Promise<Answer> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), ctx.timeoutMs);
  const answer: Answer = { events: [], end: 'broken', status: 0 };
  try {
    for await (const item of fetchTaskStream(fetch, ctx.url, params as { taskId: string }, {
      signal: abort.signal,
    })) {
      answer.status = item.status;
      const m = item.message as Record<string, unknown> | undefined;
      if (m?.['method'] === 'notifications/tasks/event') {
        const p = (m['params'] ?? {}) as Record<string, unknown>;
        answer.events.push({ taskId: p['taskId'], seq: p['seq'] });
        if (answer.events.length >= count) {
          answer.end = 'enough';
          return answer;
        }
      } else if (m && 'error' in m) {
        answer.end = 'error';
        answer.error = m['error'];
        return answer;
      } else if (m && 'result' in m) {
        answer.end = 'result';
        return answer;
      } else if (!m && item.status !== 200) {
        answer.end = 'error';
        return answer;
      }
    }
    return answer;
  } catch {
    answer.end = abort.signal.aborted ? 'timeout' : 'broken';
    return answer;
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}

const seqs = (a: Answer) => a.events.map((e) => e.seq);
const show = (a: Answer) =>
  `${a.status} events [${seqs(a).join(',')}] then ${a.end}${a.error ? ` ${JSON.stringify(a.error)}` : ''}`;

function expectEvents(a: Answer, taskId: string, want: number[], what: string) {
  const foreign = a.events.find((e) => e.taskId !== taskId);
  if (foreign)
    throw new Finding(`${what}: an event of ${JSON.stringify(foreign.taskId)} (${show(a)})`);
  if (JSON.stringify(seqs(a)) !== JSON.stringify(want) || a.end !== 'result') {
    throw new Finding(
      `${what}: expected events [${want.join(',')}] then the result, got ${show(a)}`,
    );
  }
}

function errorCode(a: Answer): unknown {
  return (a.error as { code?: unknown } | undefined)?.code;
}

/**
 * Follows a first stream and a resume through taskStreamGuard and asks the oracle about the
 * guard's recorded trace: a resume the server answers correctly must be accepted by the guard
 * and judged `ok`.
 */
async function guardedResume(ctx: Ctx, taskId: string, firstCount: number) {
  const trace: TaskTraceLine[] = [];
  const guard = taskStreamGuard({
    proofTimeoutMs: ctx.timeoutMs,
    onTrace: (l) => void trace.push(l),
  });
  const seen: number[] = [];
  try {
    for (let i = 0; i < 2; i++) {
      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(), ctx.timeoutMs);
      const after = guard.cursor(taskId);
      const params = after === undefined ? { taskId } : { taskId, after };
      try {
        for await (const e of guard.follow(
          params,
          fetchTaskStream(fetch, ctx.url, params, { signal: abort.signal }),
        )) {
          seen.push(e.seq);
          if (i === 0 && seen.length >= firstCount) break;
        }
      } catch (e) {
        if (e instanceof StreamResumptionError) {
          throw new Finding(`taskStreamGuard refused the resume: ${e.message}`);
        }
        throw new Finding(`the stream broke: ${(e as Error).message}`);
      } finally {
        clearTimeout(timer);
        abort.abort();
      }
    }
  } finally {
    guard.forget(taskId);
  }
  const report = await checkTrace(trace.map((l) => JSON.stringify(l)));
  const bad = report.reconnects.find((r) => r.verdict !== 'ok');
  if (bad) throw new Finding(`the oracle on the guard's trace: ${bad.verdict}: ${bad.reason}`);
  return seen;
}

/** One scenario: its name, what it checks, and its run (throws a {@link Finding} on failure). */
export interface TaskScenario {
  name: string;
  summary: string;
  run(ctx: Ctx): Promise<string>;
}

export const TASK_SCENARIOS: readonly TaskScenario[] = [
  {
    name: 'fresh-stream',
    summary: 'a call without after streams every event from seq 0, +1 each, then the result',
    async run(ctx) {
      const taskId = await newTask(ctx, 3, true);
      expectEvents(await call(ctx, { taskId }), taskId, [0, 1, 2], 'tasks/stream without after');
      return 'events [0,1,2] then the result';
    },
  },
  {
    name: 'resume-after',
    summary: 'after = k replays exactly the retained events with seq > k, then the result',
    async run(ctx) {
      const taskId = await newTask(ctx, 5, true);
      expectEvents(await call(ctx, { taskId, after: 2 }), taskId, [3, 4], 'after 2');
      expectEvents(await call(ctx, { taskId, after: 4 }), taskId, [], 'after 4 (the last event)');
      return 'after 2: [3,4]; after 4: nothing, then the result';
    },
  },
  {
    name: 'guarded-resume',
    summary:
      'a live stream cut after 2 events, resumed through taskStreamGuard: accepted, the oracle agrees',
    async run(ctx) {
      const taskId = await newTask(ctx, 4, true);
      const seen = await guardedResume(ctx, taskId, 2);
      if (JSON.stringify(seen) !== '[0,1,2,3]') {
        throw new Finding(`the application received [${seen.join(',')}], not [0,1,2,3]`);
      }
      return 'the guard handed on [0,1,2,3]; the oracle judged the resume ok';
    },
  },
  {
    name: 'resume-live',
    summary: 'a resume of a running task replays, then goes live',
    async run(ctx) {
      const taskId = await newTask(ctx, 2, false);
      const first = await call(ctx, { taskId, after: 0 }, 1);
      if (JSON.stringify(seqs(first)) !== '[1]') {
        throw new Finding(`after 0 on a running task: expected event 1, got ${show(first)}`);
      }
      // Events appended while the resume is open (or before it opens: replayed then) arrive.
      const live = call(ctx, { taskId, after: 1 }, 2);
      await control(ctx, TASK_CONTROL.emit, { taskId, count: 2 });
      const second = await live;
      if (JSON.stringify(seqs(second)) !== '[2,3]') {
        throw new Finding(`after 1, events 2 and 3 appended live: got ${show(second)}`);
      }
      await control(ctx, TASK_CONTROL.complete, { taskId });
      expectEvents(await call(ctx, { taskId, after: 3 }), taskId, [], 'after 3, task finished');
      return 'after 0: [1]; after 1: [2,3] live; after 3 once finished: the result at once';
    },
  },
  {
    name: 'events-gone',
    summary:
      'a cursor whose successor was evicted is refused with events_gone (earliestSeq), never skipped',
    async run(ctx) {
      const taskId = await newTask(ctx, 6, true);
      await control(ctx, TASK_CONTROL.evict, { taskId, before: 4 });
      const a = await call(ctx, { taskId, after: 1 });
      if (a.events.length > 0) {
        throw new Finding(
          `after 1 with events 2..3 evicted: events were sent (${show(a)}): a silent skip`,
        );
      }
      if (a.end !== 'error' || !isEventsGone(a.error)) {
        throw new Finding(
          `after 1 with events 2..3 evicted: expected a JSON-RPC error with data.reason events_gone (HTTP 200 or 410), got ${show(a)}`,
        );
      }
      const earliest = (a.error as { data: { earliestSeq?: unknown } }).data.earliestSeq;
      if (earliest !== 4)
        throw new Finding(`events_gone says earliestSeq ${String(earliest)}, not 4`);
      return `events_gone, earliestSeq 4 (HTTP ${a.status})`;
    },
  },
  {
    name: 'earliest-retained',
    summary:
      'after an eviction, the retained events keep their numbers; a cursor at the edge resumes',
    async run(ctx) {
      const taskId = await newTask(ctx, 6, true);
      await control(ctx, TASK_CONTROL.evict, { taskId, before: 4 });
      expectEvents(await call(ctx, { taskId }), taskId, [4, 5], 'without after, after eviction');
      expectEvents(await call(ctx, { taskId, after: 3 }), taskId, [4, 5], 'after 3 (earliest 4)');
      return 'without after: [4,5]; after 3: [4,5]';
    },
  },
  {
    name: 'invalid-after',
    summary: 'after negative, not an integer, or beyond the last event: -32602',
    async run(ctx) {
      const taskId = await newTask(ctx, 3, true);
      for (const after of [-1, 1.5, '2', 99]) {
        const a = await call(ctx, { taskId, after });
        if (a.events.length > 0 || errorCode(a) !== -32602) {
          throw new Finding(`after ${JSON.stringify(after)}: expected -32602, got ${show(a)}`);
        }
      }
      return 'after -1, 1.5, "2", 99: -32602 each';
    },
  },
  {
    name: 'other-task',
    summary: "a task's stream carries its own events only",
    async run(ctx) {
      const a = await newTask(ctx, 0, false);
      const b = await newTask(ctx, 0, false);
      for (let i = 0; i < 3; i++) {
        await control(ctx, TASK_CONTROL.emit, { taskId: b, count: 1 });
        await control(ctx, TASK_CONTROL.emit, { taskId: a, count: 1 });
      }
      await control(ctx, TASK_CONTROL.complete, { taskId: a });
      expectEvents(await call(ctx, { taskId: a, after: 0 }), a, [1, 2], 'task A after 0');
      return "task A after 0: [1,2], none of B's";
    },
  },
];

/** The scenario names, for `--only` and --help. */
export const TASK_SCENARIO_NAMES: readonly string[] = TASK_SCENARIOS.map((s) => s.name);

/** Runs the scenarios (all, or `only`) against the server at `url`, one after the other. */
export async function runTaskScenarios(
  url: string,
  options: {
    timeoutMs: number;
    only?: readonly string[];
    onResult?: (r: TaskScenarioResult) => void;
  },
): Promise<TaskScenarioResult[]> {
  const ctx: Ctx = { url, timeoutMs: options.timeoutMs };
  const results: TaskScenarioResult[] = [];
  for (const s of TASK_SCENARIOS) {
    if (options.only && !options.only.includes(s.name)) continue;
    const t0 = Date.now();
    let r: TaskScenarioResult;
    try {
      r = { scenario: s.name, verdict: 'pass', detail: await s.run(ctx), ms: 0 };
    } catch (e) {
      const detail = (e as Error).message.split('\n')[0]!;
      r = { scenario: s.name, verdict: e instanceof Finding ? 'fail' : 'error', detail, ms: 0 };
    }
    r.ms = Date.now() - t0;
    options.onResult?.(r);
    results.push(r);
  }
  return results;
}
