/**
 * The task guard's types: its options, its decisions, its trace lines and the guard's own
 * interface. Apart from the guard (./task-stream-guard.ts) so that its runtime
 * (./task-guard-runtime.ts) reads them without importing the guard back.
 */
import type { ClientMachine } from '../../model/client-machine.js';
import type { Outcome, Reason } from '../../model/outcomes.js';
import type { StreamResumptionError } from '../reference.js';
import type { TaskEvent } from './task-event-log.js';
import type { TaskStreamInit, TaskStreamItem, TaskStreamParams } from './task-stream-fetch.js';

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
  /** The machine to decide with (tests pass wrong ones). Default the client machine. */
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
