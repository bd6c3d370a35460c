/**
 * `taskStreamGuard(options)`: the client side of SEP-2694 task event streams, with the same
 * fail-closed behaviour as `continuityGuard` has for SSE. A client hands it each `tasks/stream`
 * call it makes and what came back (`follow(params, answer)`), or lets it make the call over
 * HTTP (`stream(fetch, url, taskId)`); it yields the task events the application may process,
 * and throws {@link StreamResumptionError} when continuity cannot be proven.
 *
 * The guard is a thin adapter: every wire fact (the call, each event, the result, an error, a
 * break, a timer) becomes one trace line of the `mcp-tasks` vocabulary, which the binding's
 * translator (model/bindings/mcp-tasks.ts) turns into the machine's observations; the client
 * machine (model/client-machine.ts) decides. The guard hands an event on only when the machine
 * accepted it, so nothing from after a gap reaches the application, and a duplicate (dropped
 * by the binding) never does. What the guard adds is runtime policy: the proof budget on a
 * clock, an idle bound, a bound on the tasks followed, and refusing every later call for a task
 * whose stream failed until the application forgets it (docs/runtime.md, "Task streams").
 */
import type { TaskStreamGuard, TaskStreamGuardOptions } from './task-guard-types.js';
import { TaskGuardRuntime } from './task-guard-runtime.js';
import { fetchTaskStream, type TaskStreamParams } from './task-stream-fetch.js';

export {
  TaskGuardCapacityError,
  TaskStreamLimitError,
  TaskStreamResumptionError,
} from './task-stream-error.js';
export type {
  TaskStreamDecision,
  TaskStreamGuard,
  TaskStreamGuardOptions,
  TaskTraceLine,
} from './task-guard-types.js';

/**
 * A guard for the task event streams a client consumes.
 *
 * @category Runtime
 * @example
 * ```ts
 * import { taskStreamGuard, StreamResumptionError } from 'mcp-resumption/runtime';
 *
 * const guard = taskStreamGuard({ proofTimeoutMs: 5_000 });
 * try {
 *   for (;;) {
 *     for await (const event of guard.stream(fetch, 'http://127.0.0.1:8080/mcp', taskId)) {
 *       apply(event); // each event once, in order, never one from after a gap
 *     }
 *     if (await taskFinished(taskId)) break; // the stream ended: call again with the cursor
 *   }
 * } catch (e) {
 *   if (e instanceof StreamResumptionError) rebuild(taskId); // events were lost: start over
 *   else throw e;
 * }
 * ```
 */
export function taskStreamGuard(options: TaskStreamGuardOptions = {}): TaskStreamGuard {
  return guardOver(new TaskGuardRuntime(options));
}

/**
 * The guard's interface over a runtime: `taskStreamGuard`'s, or a runtime subclass built
 * outside src/runtime/ (src/runtime-mutants/task-guard-mutants.ts). @internal
 */
export function guardOver(g: TaskGuardRuntime): TaskStreamGuard {
  return {
    follow: (params, answer) => g.follow(params, answer),
    async *stream(fetchFn, url, taskId, init = {}) {
      const after = g.tracks.get(taskId)?.lastSeq;
      const abort = new AbortController();
      // The caller's signal ends the call; leaving the loop early aborts it too.
      const { signal, ...rest } = init;
      const forward = () => abort.abort(signal!.reason);
      if (signal?.aborted) forward();
      else signal?.addEventListener('abort', forward, { once: true });
      const params: TaskStreamParams = after === undefined ? { taskId } : { taskId, after };
      try {
        yield* g.follow(
          params,
          fetchTaskStream(fetchFn, url, params, { ...rest, signal: abort.signal }),
        );
        // The caller's abort ends the call with the caller's reason, not as a clean end.
        if (signal?.aborted) throw signal.reason;
      } finally {
        signal?.removeEventListener('abort', forward);
        abort.abort();
      }
    },
    cursor: (taskId) => g.tracks.get(taskId)?.lastSeq,
    forget(taskId) {
      const track = g.tracks.get(taskId);
      if (!track) return;
      clearTimeout(track.budget);
      g.tracks.delete(taskId);
    },
    recover: (taskId) => g.recover(taskId),
  };
}
