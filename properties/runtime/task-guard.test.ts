/**
 * taskStreamGuard against a hostile task-stream server on loopback (./task-hostile.ts): the
 * claims NoSilentGap and GuardAgreesWithOracle hold for the guard (./task-guard-run.ts), and
 * each named wrong guard (src/runtime-mutants/task-guard-mutants.ts) breaks one of them.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  fetchTaskStream,
  StreamResumptionError,
  TaskEventLog,
  taskStreamHandler,
} from '../../src/runtime/index.js';
import {
  mutantTaskGuard,
  TASK_GUARD_MUTANTS,
} from '../../src/runtime-mutants/task-guard-mutants.js';
import {
  taskStreamGuard,
  type TaskStreamGuard,
  type TaskTraceLine,
} from '../../src/runtime/task-stream-guard.js';
import { checkTrace } from '../../src/trace/check.js';
import { serveFetch } from '../../src/conformance/fetch-host.js';
import { runCli } from '../support/cli.js';
import { announceSeed, runs } from '../support/seed.js';
import { script, TASK, type Script } from './task-hostile.js';
import { runTaskGuard } from './task-guard-run.js';

const seed = announceSeed('properties/runtime/task-guard.test.ts');

const fail = (broken: { claim: string; why: string }[]) => {
  if (broken.length > 0) throw new Error(broken.map((b) => `${b.claim}: ${b.why}`).join('\n'));
};

describe('taskStreamGuard against a hostile task-stream server', () => {
  test('NoSilentGap and GuardAgreesWithOracle', async () => {
    await fc.assert(
      fc.asyncProperty(script, async (s) => fail((await runTaskGuard(s)).broken)),
      { seed, numRuns: runs(150) },
    );
  });

  // Each hostile step alone, so that every case is met in every run, whatever the seed.
  const cases: [string, Script][] = [
    ['a skip', { k: 10, steps: [{ kind: 'skip', by: 2 }] }],
    ['a rewind (duplicates, then the successor)', { k: 10, steps: [{ kind: 'rewind', by: 2 }] }],
    ['a duplicate run, then an honest call', { k: 10, steps: [{ kind: 'duplicates', count: 3 }] }],
    ['a counter restarted under the same task id', { k: 10, steps: [{ kind: 'restart' }] }],
    ['events_gone as a JSON-RPC error', { k: 10, steps: [{ kind: 'gone', as: 'error' }] }],
    ['events_gone as HTTP 410', { k: 10, steps: [{ kind: 'gone', as: '410' }] }],
    ['a bare 410', { k: 10, steps: [{ kind: 'bare-410' }] }],
    ["another task's event", { k: 10, steps: [{ kind: 'other-task', at: 1 }] }],
    ['-32602 for after', { k: 10, steps: [{ kind: 'invalid' }] }],
    ['a call without after', { k: 10, steps: [{ kind: 'missing-after' }] }],
    [
      'the stream ends before the task, split into tiny chunks',
      { k: 10, steps: [{ kind: 'honest', deliver: 2, end: 'result', split: true }] },
    ],
    [
      'the connection drops before the task ends',
      { k: 10, steps: [{ kind: 'honest', deliver: 2, end: 'drop', split: false }] },
    ],
  ];
  test.each(cases)('%s', async (_name, s) => {
    const run = await runTaskGuard(s);
    fail(run.broken);
    // What each case must come to (the oracle agreeing is checked above).
    const kind = s.steps[0]!.kind;
    // A dropped resume fails (rule 1) when the drop beat its first event, else it goes on.
    if (kind === 'honest' && s.steps[0]!.end === 'drop') return;
    // A call without after is a resume from the last seq handed on (SEP-2694: the receiver
    // starts at its earliest retained event): duplicates dropped, then the successor.
    const fails = ['skip', 'gone', 'bare-410', 'other-task', 'invalid'];
    expect(run.error?.outcome ?? 'all delivered').toBe(
      kind === 'bare-410'
        ? 'session-lost'
        : fails.includes(kind)
          ? 'resumption-failed'
          : 'all delivered',
    );
  });

  test('a duplicate run forever fails when the proof budget runs out (duplicates do not extend it)', async () => {
    let timer: NodeJS.Timeout | undefined;
    const host = await serveFetch(async () => {
      // seq 0 again and again, every 20 ms, for up to a minute: the counter restarted, stuck.
      let n = 0;
      const body = new ReadableStream({
        start(controller) {
          timer = setInterval(() => {
            if (n++ > 3000) return controller.close();
            const m = {
              jsonrpc: '2.0',
              method: 'notifications/tasks/event',
              params: { seq: 0, taskId: TASK, type: 'com.example.step', payload: {} },
            };
            controller.enqueue(new TextEncoder().encode(`data: ${JSON.stringify(m)}\n\n`));
          }, 20);
        },
        cancel() {
          clearInterval(timer);
        },
      });
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    });
    const trace: TaskTraceLine[] = [];
    const guard = taskStreamGuard({ proofTimeoutMs: 300, onTrace: (l) => void trace.push(l) });
    // The guard saw seq 0..2 on a first stream it did not record: start it from a scripted one.
    const first = (async function* () {
      for (let seq = 0; seq < 3; seq++) {
        yield {
          status: 200,
          message: {
            jsonrpc: '2.0',
            method: 'notifications/tasks/event',
            params: { seq, taskId: TASK, type: 'com.example.step', payload: {} },
          },
        };
      }
      yield { status: 200, message: { jsonrpc: '2.0', id: 1, result: {} } };
    })();
    try {
      for await (const e of guard.follow({ taskId: TASK }, first)) void e;
      const params = { taskId: TASK, after: guard.cursor(TASK)! };
      const handed: number[] = [];
      const outcome = await (async () => {
        for await (const e of guard.follow(params, fetchTaskStream(fetch, host.url, params)))
          handed.push(e.seq);
        return 'ended';
      })().catch((e: unknown) => e);
      expect(handed).toEqual([]);
      expect(outcome).toBeInstanceOf(StreamResumptionError);
      expect((outcome as StreamResumptionError).outcome).toBe('resumption-failed');
      const report = await checkTrace(trace.map((l) => JSON.stringify(l)));
      expect(report.reconnects.map((r) => [r.expected, r.verdict])).toEqual([
        ['resumption-failed', 'ok'],
      ]);
    } finally {
      clearInterval(timer);
      await host.close();
    }
  });
});

test('guard.stream against a TaskEventLog server: a reader that leaves early resumes from its cursor', async () => {
  const log = new TaskEventLog();
  const taskId = log.createTask();
  for (let i = 0; i < 5; i++) log.append(taskId, 'com.example.step', { i });
  log.complete(taskId);
  const host = await serveFetch(taskStreamHandler(log));
  const trace: TaskTraceLine[] = [];
  const guard = taskStreamGuard({ onTrace: (l) => void trace.push(l) });
  try {
    const seen: number[] = [];
    for await (const e of guard.stream(fetch, host.url, taskId)) {
      seen.push(e.seq);
      if (seen.length === 2) break; // the application leaves: a disconnect
    }
    expect(guard.cursor(taskId)).toBe(1);
    for await (const e of guard.stream(fetch, host.url, taskId)) seen.push(e.seq);
    expect(seen).toEqual([0, 1, 2, 3, 4]);
    const report = await checkTrace(trace.map((l) => JSON.stringify(l)));
    expect(report.reconnects.map((r) => [r.cursor, r.expected, r.verdict])).toEqual([
      [1, 'resumed', 'ok'],
    ]);
  } finally {
    await host.close();
  }
});

test('the recorded trace is what `check` reads: the CLI judges it under its binding line, strict, exit 0', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'task-trace-'));
  try {
    const scripts: Script[] = [
      {
        k: 10,
        steps: [
          { kind: 'duplicates', count: 2 },
          { kind: 'rewind', by: 1 },
        ],
      },
      { k: 10, steps: [{ kind: 'gone', as: '410' }] },
      { k: 10, steps: [{ kind: 'invalid' }] },
      { k: 10, steps: [{ kind: 'honest', deliver: 1, end: 'drop', split: true }] },
    ];
    for (const [i, s] of scripts.entries()) {
      const run = await runTaskGuard(s);
      const file = join(dir, `trace-${i}.jsonl`);
      await writeFile(file, run.trace.join('\n') + '\n');
      const r = await runCli(['check', file, '--strict']);
      expect(r.code, `${JSON.stringify(s)}\n${r.out}${r.err}`).toBe(0);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a malformed task event is not handed on: the guard gives the stream up, and check reads the trace', async () => {
  const trace: TaskTraceLine[] = [];
  const guard = taskStreamGuard({ onTrace: (l) => void trace.push(l) });
  const answer = (async function* () {
    const event = (params: unknown) => ({
      status: 200,
      message: { jsonrpc: '2.0', method: 'notifications/tasks/event', params },
    });
    yield event({ seq: 0, taskId: TASK, type: 'com.example.step', payload: {} });
    yield event({ seq: '1', taskId: TASK, type: 'com.example.step', payload: {} });
    yield event({ seq: 1, taskId: TASK, type: 'com.example.step', payload: {} });
  })();
  const handed: number[] = [];
  await expect(
    (async () => {
      for await (const e of guard.follow({ taskId: TASK }, answer)) handed.push(e.seq);
    })(),
  ).rejects.toThrow(/malformed/);
  expect(handed).toEqual([0]);
  const report = await checkTrace(trace.map((l) => JSON.stringify(l)));
  expect(report.exitCode).toBe(0);
});

/**
 * A receiver that closes every resume empty (it never sends the successor, nor events_gone):
 * each poll is unproven, and the episode must fail when the budget runs out. The polls go on up
 * to `maxPolls`, long past the budget; what is returned is how the client's loop ended. Each
 * answer waits `delayMs` first, so that the polls take at least `maxPolls * delayMs` in all.
 */
async function emptyPolls(guard: TaskStreamGuard, maxPolls: number, delayMs = 25) {
  const host = await serveFetch(async (request) => {
    const { id } = (await request.json()) as { id: unknown };
    await new Promise((r) => setTimeout(r, delayMs));
    return new Response(`data: ${JSON.stringify({ jsonrpc: '2.0', id, result: {} })}\n\n`, {
      headers: { 'content-type': 'text/event-stream' },
    });
  });
  const first = (async function* () {
    for (let seq = 0; seq < 2; seq++) {
      const params = { seq, taskId: TASK, type: 'com.example.step', payload: {} };
      yield {
        status: 200,
        message: { jsonrpc: '2.0', method: 'notifications/tasks/event', params },
      };
    }
    yield { status: 200, message: { jsonrpc: '2.0', id: 0, result: {} } };
  })();
  try {
    for await (const e of guard.follow({ taskId: TASK }, first)) void e;
    for (let poll = 0; poll < maxPolls; poll++) {
      const params = { taskId: TASK, after: guard.cursor(TASK)! };
      try {
        for await (const e of guard.follow(params, fetchTaskStream(fetch, host.url, params))) {
          return `event ${e.seq} handed on`;
        }
      } catch (e) {
        if (e instanceof StreamResumptionError) return `failed after ${poll + 1} polls: ${e.code}`;
        throw e;
      }
    }
    return `still polling after ${maxPolls} polls`;
  } finally {
    await host.close();
  }
}

describe('the polls of one episode share one proof budget', () => {
  test('a receiver that closes every resume empty fails the episode when the budget runs out', async () => {
    const trace: TaskTraceLine[] = [];
    const guard = taskStreamGuard({ proofTimeoutMs: 200, onTrace: (l) => void trace.push(l) });
    expect(await emptyPolls(guard, 200)).toMatch(
      /^failed after \d+ polls: (unproven|no-response)$/,
    );
    const report = await checkTrace(trace.map((l) => JSON.stringify(l)));
    expect(report.reconnects.filter((r) => r.verdict !== 'ok')).toEqual([]);
    expect(report.reconnects.at(-1)?.expected).toBe('resumption-failed');
  });

  test('the mutant budget-per-poll is killed: it polls forever', async () => {
    // 30 polls of at least 100 ms each: three times the budget, on any machine. A single poll
    // must still answer within the budget for the mutant to go on polling, so the budget is ten
    // times one poll's wait: with 200 ms against 25 ms, one poll slower than 200 ms on a loaded
    // machine (load 10 on 2 cores) failed the mutant after 2 polls.
    const guard = mutantTaskGuard({ proofTimeoutMs: 1_000 }, 'budget-per-poll');
    expect(await emptyPolls(guard, 30, 100)).toBe('still polling after 30 polls');
  });
});

describe('every task guard mutant is killed by the property', () => {
  test.each(
    TASK_GUARD_MUTANTS.filter(
      (m) => m.name !== 'budget-per-poll' && m.name !== 'cursor-follows-duplicates',
    ).map((m) => [m.name, m.description] as const),
  )('%s (%s)', async (name) => {
    const result = await fc.check(
      fc.asyncProperty(script, async (s) => fail((await runTaskGuard(s, name)).broken)),
      { seed, numRuns: runs(400), endOnFailure: true },
    );
    expect(result.failed, `mutant ${name} survived ${result.numRuns} runs (seed ${seed})`).toBe(
      true,
    );
    console.log(
      `[task mutant ${name}] killed after ${result.numRuns} runs: ${JSON.stringify(result.counterexample)}\n${String(result.errorInstance)}`,
    );
  });
});

test('mcp-resumption/runtime offers no door to a task guard mutant', async () => {
  const runtime: Record<string, unknown> = await import('../../src/runtime/index.js');
  for (const name of ['guardOver', 'mutantTaskGuard', 'TASK_GUARD_MUTANTS']) {
    expect(Object.keys(runtime)).not.toContain(name);
  }
  expect(Object.keys(runtime)).toContain('taskStreamGuard');
});
