/**
 * A hostile task-stream server for the taskStreamGuard property suite: one task whose true log
 * is `seq` 0..K-1 (payload `{n: seq}`), served over loopback, each `tasks/stream` call answered
 * by the next step of a script. A step may be honest (part of the replay, then the result or a
 * dropped connection, possibly split into tiny chunks) or hostile: a skip, a rewind, a
 * duplicate run, a counter restarted under the same task id, events_gone as a JSON-RPC error
 * or as HTTP 410, a bare 410, another task's event, -32602. The client side of the script (a
 * call without `after`) is a step too.
 */
import fc from 'fast-check';
import { serveFetch, type FetchHost } from '../../src/conformance/fetch-host.js';
import { eventsGoneError } from '../../src/runtime/task-event-log.js';

export const TASK = 'task-hostile';
export const OTHER_TASK = 'task-other';

/** One `tasks/stream` call and how the server answers it. */
export type Step =
  | { kind: 'honest'; deliver: number; end: 'result' | 'drop'; split: boolean }
  | { kind: 'skip'; by: number }
  | { kind: 'rewind'; by: number }
  | { kind: 'duplicates'; count: number }
  | { kind: 'restart' }
  | { kind: 'gone'; as: 'error' | '410' }
  | { kind: 'bare-410' }
  | { kind: 'other-task'; at: number }
  | { kind: 'invalid' }
  | { kind: 'missing-after' }
  /** Duplicates below the cursor only (seq after - 1), in order, then the result: a poll. */
  | { kind: 'duplicates-below'; count: number };

export interface Script {
  /** Events in the task's true log. */
  k: number;
  /** The calls after the first (an honest, partial one) and before the last (honest, full). */
  steps: Step[];
}

const honest = fc.record({
  kind: fc.constant('honest' as const),
  deliver: fc.nat(4),
  end: fc.constantFrom('result' as const, 'drop' as const),
  split: fc.boolean(),
});

export const step: fc.Arbitrary<Step> = fc.oneof(
  honest,
  fc.record({ kind: fc.constant('skip' as const), by: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('rewind' as const), by: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('duplicates' as const), count: fc.integer({ min: 1, max: 4 }) }),
  fc.constant({ kind: 'restart' as const }),
  fc.record({
    kind: fc.constant('gone' as const),
    as: fc.constantFrom('error' as const, '410' as const),
  }),
  fc.constant({ kind: 'bare-410' as const }),
  fc.record({ kind: fc.constant('other-task' as const), at: fc.nat(2) }),
  fc.constant({ kind: 'invalid' as const }),
  fc.constant({ kind: 'missing-after' as const }),
  fc.record({
    kind: fc.constant('duplicates-below' as const),
    count: fc.integer({ min: 1, max: 3 }),
  }),
);

export const script: fc.Arbitrary<Script> = fc.record({
  k: fc.integer({ min: 2, max: 10 }),
  steps: fc.array(step, { maxLength: 5 }),
});

const event = (taskId: string, seq: number, extra: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  method: 'notifications/tasks/event',
  params: { seq, taskId, type: 'com.example.step', payload: { n: seq, ...extra } },
});

const result = (id: unknown) => ({ jsonrpc: '2.0', id, result: {} });

function sseBody(messages: unknown[], end: 'result' | 'drop', split: boolean): ReadableStream {
  const text = messages.map((m) => `event: message\ndata: ${JSON.stringify(m)}\n\n`).join('');
  const bytes = new TextEncoder().encode(text);
  // Split: 1 to 7 bytes a chunk, so events are cut anywhere, even inside a UTF-8 sequence.
  const size = split ? 1 + (bytes.length % 7) : bytes.length;
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at < bytes.length) {
        controller.enqueue(bytes.slice(at, at + size));
        at += size;
        return;
      }
      if (end === 'drop') controller.error(new Error('connection dropped'));
      else controller.close();
    },
  });
}

const sse = (messages: unknown[], end: 'result' | 'drop' = 'result', split = false) =>
  new Response(sseBody(messages, end, split), {
    headers: { 'content-type': 'text/event-stream' },
  });

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/** The server: answers each call by the next step (the script's first and last are honest). */
export async function hostileServer(s: Script): Promise<FetchHost> {
  const plan: Step[] = [
    { kind: 'honest', deliver: 1 + (s.k >> 1), end: 'result', split: false },
    ...s.steps,
    { kind: 'honest', deliver: s.k, end: 'result', split: true },
  ];
  let calls = 0;
  const host = await serveFetch(async (request) => {
    const body = JSON.parse(await request.text()) as {
      id: unknown;
      params: { taskId: string; after?: number };
    };
    const st = plan[Math.min(calls, plan.length - 1)]!;
    calls++;
    const after = body.params.after;
    const from = after === undefined ? 0 : after + 1;
    const run = (start: number, n: number) => {
      const out = [];
      for (let seq = Math.max(0, start); seq < Math.min(s.k, start + n); seq++)
        out.push(event(TASK, seq));
      return out;
    };
    switch (st.kind) {
      case 'honest':
      case 'missing-after': {
        const n = st.kind === 'honest' ? st.deliver : s.k;
        const events = run(from, n);
        const done = from + n >= s.k;
        const end = st.kind === 'honest' && !done ? st.end : 'result';
        return sse(
          end === 'result' ? [...events, result(body.id)] : events,
          end,
          st.kind === 'honest' && st.split,
        );
      }
      case 'skip':
        return sse([...run(from + st.by, s.k), result(body.id)]);
      case 'rewind':
        return sse([...run(from - st.by, s.k), result(body.id)]);
      case 'duplicates':
        return sse([
          ...Array.from({ length: st.count }, () => event(TASK, Math.max(0, from - 1))),
          result(body.id),
        ]);
      case 'duplicates-below':
        return sse([
          ...Array.from({ length: st.count }, () => event(TASK, Math.max(0, from - 2))),
          result(body.id),
        ]);
      case 'restart': {
        // The counter started again under the same id: 0.. up to the cursor, then it ends.
        const again = [];
        for (let seq = 0; seq < from; seq++) again.push(event(TASK, seq, { restarted: true }));
        return sse([...again, result(body.id)]);
      }
      case 'gone': {
        const error = { jsonrpc: '2.0', id: body.id, error: eventsGoneError(TASK, from + 1) };
        return json(error, st.as === '410' ? 410 : 200);
      }
      case 'bare-410':
        return new Response(null, { status: 410 });
      case 'other-task': {
        const own = run(from, st.at);
        return sse([
          ...own,
          event(OTHER_TASK, from + own.length),
          ...run(from + own.length, s.k),
          result(body.id),
        ]);
      }
      case 'invalid':
        return json({
          jsonrpc: '2.0',
          id: body.id,
          error: { code: -32602, message: 'Invalid params: after' },
        });
    }
  });
  return host;
}

/** The number of calls the client makes for a script: one per step. */
export const callsOf = (s: Script) => s.steps.length + 2;
