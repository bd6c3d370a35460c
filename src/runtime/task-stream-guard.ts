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
import type { ClientMachine } from '../../model/client-machine.js';
import type { Outcome, Reason } from '../../model/outcomes.js';
import type { StreamResumptionError } from '../reference.js';
import type { TaskEvent } from './task-event-log.js';
import { TaskGuardRuntime } from './task-guard-runtime.js';
import {
  fetchTaskStream,
  type TaskStreamInit,
  type TaskStreamItem,
  type TaskStreamParams,
} from './task-stream-fetch.js';

export {
  TaskGuardCapacityError,
  TaskStreamLimitError,
  TaskStreamResumptionError,
} from './task-stream-error.js';

/** One line of a task-stream trace (format of `check --binding mcp-tasks`), with its time `t`. */
export type TaskTraceLine = { type: string; t?: number } & Record<string, unknown>;

/** A decision the guard took about one resume. */
export interface TaskStreamDecision {
  taskId: string;
  outcome: Outcome;
  reason: Reason | null;
  /** The `after` sent (`null`: none). */
  after: number | null;
}

/** Options of {@link taskStreamGuard}. */
export interface TaskStreamGuardOptions {
  /**
   * The proof budget of an episode (ms), from its first resume: a resume still unproven (no
   * event `after + 1`) when it runs out has failed (rule 7). The polls of one episode (the
   * receiver closes each resumed stream empty; the client calls again with the same `after`)
   * share it, and duplicates do not extend it. Default 10000.
   */
  proofTimeoutMs?: number;
  /**
   * How long (ms) a stream may stay silent (no message at all) before the guard gives it up
   * (an `idle-timeout`, then a break: call again with the cursor). 0 (default): no bound, as a
   * task may run long between events; the proof budget still bounds every resume.
   */
  idleTimeoutMs?: number;
  /** The most tasks followed at once; one more is refused ({@link TaskGuardCapacityError}). Default 10000. */
  maxTasks?: number;
  /** Called with every escalation. */
  onFailure?: (error: StreamResumptionError) => void;
  /** Called with every decision about a resume. */
  onDecision?: (decision: TaskStreamDecision) => void;
  /**
   * Receives the trace, one line at a time, with the task it belongs to. Each task's lines,
   * joined with newlines, are a trace `mcp-resumption check` reads (its first line names the
   * binding and the proof budget).
   */
  onTrace?: (line: TaskTraceLine, taskId: string) => void;
  /** The machine to decide with (tests pass mutants). Default the client machine. */
  machine?: ClientMachine;
}

/** A guard over task event streams: see {@link taskStreamGuard}. */
export interface TaskStreamGuard {
  /**
   * Follows one `tasks/stream` call: `params` as sent, `answer` what came back. Yields the
   * events the application may process, in order, each once; returns when the stream ended
   * (its result, or a break: call again with {@link TaskStreamGuard.cursor}); throws
   * {@link StreamResumptionError} when continuity cannot be proven, and throws it again for
   * every later call for the task until {@link TaskStreamGuard.forget}.
   */
  follow(
    params: TaskStreamParams,
    answer: AsyncIterable<TaskStreamItem>,
  ): AsyncGenerator<TaskEvent, void, undefined>;
  /** Calls `tasks/stream` over HTTP (with `after` = the cursor) and follows it. */
  stream(
    fetchFn: typeof fetch,
    url: string | URL,
    taskId: string,
    init?: TaskStreamInit,
  ): AsyncGenerator<TaskEvent, void, undefined>;
  /** The `seq` of the last event handed on for the task: the `after` of the next call. */
  cursor(taskId: string): number | undefined;
  /** Forgets a task: it finished, or the application accepts starting it again from scratch. */
  forget(taskId: string): void;
  /**
   * After a {@link StreamResumptionError} for `events_gone`, accepts the gap SEP-2694's way
   * ("call tasks/stream with after set to earliestSeq - 1"): the task's cursor becomes
   * `earliestSeq - 1` and its next call resumes there, judged as any resume. Returns that
   * cursor; throws when the task's stream did not fail with `events_gone`.
   */
  recover(taskId: string): number;
}

/** The name of a task guard mutant (src/runtime-mutants/task-guard-mutants.ts). @internal */
export type TaskGuardMutantName =
  | 'accepts-skip'
  | 'forwards-duplicates'
  | 'gone-410-is-session-lost'
  | 'accepts-missing-after'
  | 'budget-per-poll'
  | 'cursor-follows-duplicates';

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
  return taskGuardWith(options, undefined);
}

/** The guard with one of its mutants put back (tests only), or none. @internal */
export function taskGuardWith(
  options: TaskStreamGuardOptions,
  mutant: TaskGuardMutantName | undefined,
): TaskStreamGuard {
  const g = new TaskGuardRuntime(options, mutant);
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
