/**
 * `TaskEventLog`: an in-process log of task events that serves `tasks/stream` as SEP-2694
 * drafts it (model/bindings/mcp-tasks.ts names the commit): every task's events are numbered
 * from `seq` 0, +1 each; a stream replays every retained event after the cursor `after` and
 * then goes live, or is refused with `events_gone` (`earliestSeq`) when the cursor's successor
 * is no longer retained. It never skips silently and never renumbers: eviction drops the oldest
 * events and refuses the cursors that needed them, and task ids are issued by the log, never
 * twice, so no counter can restart under an id a client already holds.
 *
 * Bounds (docs/runtime.md, "Task streams"): `maxEventsPerTask` retained per task (the oldest
 * are dropped first), `maxTasks` tasks held (the oldest finished task is forgotten first; when
 * every task held is running, creating one more is refused with {@link TaskLogCapacityError}).
 */

/** A task event as `notifications/tasks/event` carries it. */
export interface TaskEvent {
  seq: number;
  taskId: string;
  /** A vendor-prefixed event type, e.g. `com.example.step`. */
  type: string;
  payload: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

/** A JSON-RPC error object. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: Record<string, unknown>;
}

/** The JSON-RPC error code of `events_gone` in SEP-2694's example (server error range). */
export const EVENTS_GONE_CODE = -32010;
/** Invalid params: a bad `after` or `taskId`, an unknown task. */
export const INVALID_PARAMS = -32602;

/** The `events_gone` error for a task whose earliest retained event is `earliestSeq`. */
export function eventsGoneError(taskId: string, earliestSeq: number): JsonRpcErrorObject {
  return {
    code: EVENTS_GONE_CODE,
    message: 'Task events are no longer available',
    data: { reason: 'events_gone', taskId, earliestSeq },
  };
}

/** `true` when `error` is an `events_gone` error (classified on its body, SEP-2694). */
export function isEventsGone(error: unknown): error is JsonRpcErrorObject {
  const data = (error as { data?: { reason?: unknown } } | null)?.data;
  return typeof data === 'object' && data !== null && data.reason === 'events_gone';
}

/** Creating a task was refused: every task the log holds is still running. */
export class TaskLogCapacityError extends Error {
  constructor(readonly maxTasks: number) {
    super(
      `TaskEventLog: already holds maxTasks (${maxTasks}) running tasks; finish one before creating another`,
    );
    this.name = 'TaskLogCapacityError';
  }
}

/** Options of {@link TaskEventLog}. */
export interface TaskEventLogOptions {
  /** Events retained per task; older ones are dropped (their cursors get `events_gone`). Default 1000. */
  maxEventsPerTask?: number;
  /** Tasks held; the oldest finished one is forgotten first. Default 10000. */
  maxTasks?: number;
}

/** What opening a stream gives: an error to answer with, or the events to send. */
export type TaskStreamOpening =
  | { ok: false; error: JsonRpcErrorObject }
  | { ok: true; events: AsyncGenerator<TaskEvent, void, undefined> };

interface Task {
  id: string;
  /** Retained events, oldest first; `events[0].seq` is the earliest retained. */
  events: TaskEvent[];
  /** The seq the next event gets. */
  next: number;
  done: boolean;
  /** Live streams waiting for the next event (or the end). */
  waiters: Set<() => void>;
}

function bounded(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isSafeInteger(v) || v < 1) {
    throw new RangeError(`TaskEventLog: ${name} must be an integer >= 1, got ${v}`);
  }
  return v;
}

const invalid = (message: string): TaskStreamOpening => ({
  ok: false,
  error: { code: INVALID_PARAMS, message },
});

/**
 * An in-process task event log that serves `tasks/stream`.
 *
 * @category Runtime
 * @example
 * ```ts
 * import { TaskEventLog, taskStreamHandler } from 'mcp-resumption/runtime';
 *
 * const log = new TaskEventLog({ maxEventsPerTask: 500 });
 * const taskId = log.createTask();
 * log.append(taskId, 'com.example.step', { n: 1 });
 * // Serve tasks/stream (a Web fetch handler: Deno, Bun, Hono, or Node with an adapter).
 * const handle = taskStreamHandler(log);
 * ```
 */
export class TaskEventLog {
  /** Distinguishes this log's task ids from every other log's (and every restart's). */
  readonly epoch: string;
  private readonly maxEvents: number;
  private readonly maxTasks: number;
  /** Tasks in creation order (a Map keeps it): the first finished one is forgotten first. */
  private readonly tasks = new Map<string, Task>();
  private created = 0;

  constructor(options: TaskEventLogOptions = {}) {
    this.maxEvents = bounded('maxEventsPerTask', options.maxEventsPerTask, 1000);
    this.maxTasks = bounded('maxTasks', options.maxTasks, 10_000);
    this.epoch = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  }

  /** A new task with a fresh id (this log never issues an id twice). */
  createTask(): string {
    if (this.tasks.size >= this.maxTasks) {
      const finished = [...this.tasks.values()].find((t) => t.done);
      if (!finished) throw new TaskLogCapacityError(this.maxTasks);
      this.tasks.delete(finished.id);
    }
    const id = `task-${this.epoch}-${++this.created}`;
    this.tasks.set(id, { id, events: [], next: 0, done: false, waiters: new Set() });
    return id;
  }

  private task(taskId: string): Task {
    const t = this.tasks.get(taskId);
    if (!t) throw new RangeError(`TaskEventLog: unknown task ${JSON.stringify(taskId)}`);
    return t;
  }

  /** Appends an event to a running task: it gets the next `seq`. */
  append(taskId: string, type: string, payload: Record<string, unknown> = {}): TaskEvent {
    const t = this.task(taskId);
    if (t.done) throw new RangeError(`TaskEventLog: task ${JSON.stringify(taskId)} has finished`);
    const event: TaskEvent = {
      seq: t.next++,
      taskId,
      type,
      payload,
      _meta: { 'io.modelcontextprotocol/related-task': { taskId } },
    };
    t.events.push(event);
    // Retention: the oldest go first; a cursor that needed them is refused with events_gone.
    if (t.events.length > this.maxEvents) t.events.splice(0, t.events.length - this.maxEvents);
    this.wake(t);
    return event;
  }

  /**
   * Drops the task's retained events with `seq < before` (retention by age, or by an operator):
   * the cursors that needed them get `events_gone`; the others keep their numbers. Returns the
   * earliest retained seq afterwards (the next seq when none is left).
   */
  trim(taskId: string, before: number): number {
    const t = this.task(taskId);
    const drop = t.events.findIndex((e) => e.seq >= before);
    t.events.splice(0, drop < 0 ? t.events.length : drop);
    this.wake(t);
    return t.events[0]?.seq ?? t.next;
  }

  /** The task reached a terminal state: live streams end once they have sent everything. */
  complete(taskId: string): void {
    const t = this.task(taskId);
    t.done = true;
    this.wake(t);
  }

  private wake(t: Task): void {
    const waiters = [...t.waiters];
    t.waiters.clear();
    for (const w of waiters) w();
  }

  /** What the log holds of a task: `earliest` retained seq (`null`: none), `next` seq, `done`. */
  describe(taskId: string): { earliest: number | null; next: number; done: boolean } | undefined {
    const t = this.tasks.get(taskId);
    if (!t) return undefined;
    return { earliest: t.events[0]?.seq ?? null, next: t.next, done: t.done };
  }

  /**
   * Opens a `tasks/stream` for `params` ({taskId, after?}, as received): `-32602` for a bad
   * `taskId`, an unknown task or an invalid `after` (negative, not an integer, or beyond the
   * last event issued); `events_gone` when `after + 1` is no longer retained; else the events
   * with `seq > after` (without `after`, from the earliest retained), then live ones until the
   * task finishes or `signal` aborts (what is retained is still sent first). A stream whose next event is evicted while it waits
   * (a slow reader) throws {@link EventsGoneError} instead of skipping it.
   */
  openStream(params: unknown, signal?: AbortSignal): TaskStreamOpening {
    if (typeof params !== 'object' || params === null || Array.isArray(params)) {
      return invalid('tasks/stream params must be an object');
    }
    const { taskId, after } = params as { taskId?: unknown; after?: unknown };
    if (typeof taskId !== 'string' || taskId === '') {
      return invalid('tasks/stream taskId must be a non-empty string');
    }
    const t = this.tasks.get(taskId);
    if (!t) return invalid(`unknown task ${JSON.stringify(taskId)}`);
    if (after !== undefined && after !== null) {
      if (typeof after !== 'number' || !Number.isSafeInteger(after) || after < 0) {
        return invalid(`tasks/stream after must be a non-negative integer, got ${String(after)}`);
      }
      if (after >= t.next) {
        return invalid(
          `tasks/stream after ${after} is beyond the last event of the task (${t.next - 1})`,
        );
      }
      const earliest = t.events[0]?.seq ?? t.next;
      if (after + 1 < earliest) return { ok: false, error: eventsGoneError(taskId, earliest) };
      return { ok: true, events: this.follow(t, after + 1, signal) };
    }
    return { ok: true, events: this.follow(t, t.events[0]?.seq ?? t.next, signal) };
  }

  /** Every event of `t` from `from` on, live, until the task is done and all were sent. */
  private async *follow(
    t: Task,
    from: number,
    signal?: AbortSignal,
  ): AsyncGenerator<TaskEvent, void, undefined> {
    let next = from;
    for (;;) {
      const earliest = t.events[0]?.seq ?? t.next;
      if (next < earliest) throw new EventsGoneError(t.id, earliest);
      if (next < t.next) {
        yield t.events[next - earliest]!;
        next++;
        continue;
      }
      // Everything there was sent: wait for more, unless the task is done or the reader left.
      if (t.done || signal?.aborted) return;
      await new Promise<void>((resolve) => {
        const wake = () => {
          signal?.removeEventListener('abort', wake);
          t.waiters.delete(wake);
          resolve();
        };
        t.waiters.add(wake);
        signal?.addEventListener('abort', wake, { once: true });
      });
    }
  }
}

/** A live stream fell behind retention: the event it needed next was dropped. */
export class EventsGoneError extends Error {
  constructor(
    readonly taskId: string,
    readonly earliestSeq: number,
  ) {
    super(`task ${taskId}: events before ${earliestSeq} are no longer retained`);
    this.name = 'EventsGoneError';
  }
  /** The JSON-RPC error that ends the stream. */
  toJsonRpc(): JsonRpcErrorObject {
    return eventsGoneError(this.taskId, this.earliestSeq);
  }
}
