/**
 * The errors a task event stream ends with, in the task's own words: which task, which `after`
 * the call sent, and why. Each extends {@link StreamResumptionError}, so one `catch` for
 * `StreamResumptionError` handles SSE streams and task streams alike.
 */
import type { Outcome, ReasonCode } from '../../model/outcomes.js';
import { StreamResumptionError } from '../reference.js';

/** `after` in words: the value, or that the call sent none. */
export function afterText(after: number | null | undefined): string {
  return after === null || after === undefined ? 'without after' : `with after ${after}`;
}

/**
 * A task stream whose continuity cannot be proven, or whose answer could not be read: names the
 * task and the `after` of the call (`null`: the call sent none).
 *
 * @category Runtime
 */
export class TaskStreamResumptionError extends StreamResumptionError {
  constructor(
    readonly taskId: string,
    readonly after: number | null,
    why: string,
    code: ReasonCode,
    outcome: Extract<Outcome, 'resumption-failed' | 'session-lost'> = 'resumption-failed',
    options?: { cause?: unknown },
  ) {
    super(
      `task ${JSON.stringify(taskId)}, tasks/stream ${afterText(after)}: ${why}`,
      code,
      outcome,
    );
    this.name = 'TaskStreamResumptionError';
    if (options && 'cause' in options) (this as { cause?: unknown }).cause = options.cause;
  }
}

/**
 * An answer to `tasks/stream` over a bound of `fetchTaskStream` (one SSE event, or a body that
 * is not an event stream): the answer was given up unread, so nothing after it can be proven.
 *
 * @category Runtime
 */
export class TaskStreamLimitError extends TaskStreamResumptionError {
  constructor(
    taskId: string,
    after: number | null,
    readonly limit: 'maxEventBytes' | 'maxBodyBytes',
    readonly bytes: number,
  ) {
    super(
      taskId,
      after,
      limit === 'maxEventBytes'
        ? `one SSE event went over maxEventBytes (${bytes} bytes): the answer was given up`
        : `a body that is not an event stream went over maxBodyBytes (${bytes} bytes): the answer was given up`,
      'bad-status',
    );
    this.name = 'TaskStreamLimitError';
  }
}

/** A call for one more task was refused: the guard already follows `maxTasks`. */
export class TaskGuardCapacityError extends Error {
  constructor(readonly maxTasks: number) {
    super(
      `taskStreamGuard: already following maxTasks (${maxTasks}) tasks; forget finished ones first`,
    );
    this.name = 'TaskGuardCapacityError';
  }
}
