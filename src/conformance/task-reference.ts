/**
 * The reference task-stream server of `conformance --binding mcp-tasks`: a TaskEventLog served
 * by taskStreamHandler, plus the control methods of the task contract (docs/conformance.md,
 * "Task event streams"), and its mutants, each a wrong server the scenarios must catch.
 */
import {
  isEventsGone,
  TaskEventLog,
  type TaskEvent,
  type TaskEventLogOptions,
  type TaskStreamOpening,
} from '../runtime/task-event-log.js';
import { taskStreamHandler } from '../runtime/task-stream-handler.js';

/** The control methods a server under `--binding mcp-tasks --url` serves beside tasks/stream. */
export const TASK_CONTROL = {
  create: 'conformance/task_create',
  emit: 'conformance/task_emit',
  complete: 'conformance/task_complete',
  evict: 'conformance/task_evict',
} as const;

/** A wrong reference server. */
export type TaskServerMutantName =
  'silent-skip' | 'renumbering' | 'bare-410' | 'replay-from-head' | 'skip-one';

/** Every mutant of the reference server, with what it does wrong. */
export const TASK_SERVER_MUTANTS: readonly { name: TaskServerMutantName; description: string }[] = [
  {
    name: 'silent-skip',
    description: 'a cursor whose successor was evicted is served from the earliest retained event',
  },
  {
    name: 'renumbering',
    description: 'numbers the retained events from 0 again after an eviction',
  },
  { name: 'bare-410', description: 'answers events_gone as HTTP 410 without a body' },
  { name: 'replay-from-head', description: 'ignores after: replays from the earliest retained' },
  { name: 'skip-one', description: 'starts a resume at after + 2' },
];

/** A log that serves streams wrong, one way per mutant. */
class MutantLog extends TaskEventLog {
  constructor(
    private readonly mutant: TaskServerMutantName,
    options?: TaskEventLogOptions,
  ) {
    super(options);
  }

  override openStream(params: unknown, signal?: AbortSignal): TaskStreamOpening {
    const p = (params ?? {}) as { taskId?: unknown; after?: unknown };
    const taskId = typeof p.taskId === 'string' ? p.taskId : '';
    const info = this.describe(taskId);
    const after = typeof p.after === 'number' ? p.after : undefined;
    if (!info || after === undefined || !Number.isSafeInteger(after) || after < 0) {
      return this.renumbered(super.openStream(params, signal), info?.earliest ?? 0);
    }
    switch (this.mutant) {
      case 'silent-skip': {
        const o = super.openStream(params, signal);
        return o.ok || !isEventsGone(o.error) ? o : super.openStream({ taskId }, signal);
      }
      case 'replay-from-head': {
        const o = super.openStream(params, signal);
        if (!o.ok) return o;
        void o.events.return(undefined);
        return super.openStream({ taskId }, signal);
      }
      case 'skip-one':
        return after + 1 < info.next
          ? super.openStream({ taskId, after: after + 1 }, signal)
          : super.openStream(params, signal);
      case 'renumbering': {
        // Its cursors count from its earliest retained event, as its numbers do.
        const earliest = info.earliest ?? info.next;
        return this.renumbered(
          super.openStream({ taskId, after: after + earliest }, signal),
          earliest,
        );
      }
      default:
        return super.openStream(params, signal);
    }
  }

  private renumbered(o: TaskStreamOpening, earliest: number): TaskStreamOpening {
    if (this.mutant !== 'renumbering' || !o.ok) return o;
    const events = o.events;
    return {
      ok: true,
      events: (async function* () {
        for await (const e of events) yield { ...e, seq: e.seq - earliest } as TaskEvent;
      })(),
    };
  }
}

/** A TaskEventLog with the mutant `name`: for the contract suite and the reference mutants. */
export function mutantTaskLog(
  name: TaskServerMutantName,
  options?: TaskEventLogOptions,
): TaskEventLog {
  return new MutantLog(name, options);
}

function taskIdOf(params: unknown): string {
  const taskId = (params as { taskId?: unknown } | null)?.taskId;
  if (typeof taskId !== 'string') throw new Error('taskId must be a string');
  return taskId;
}

function countOf(params: unknown, field: string): number {
  const n = (params as Record<string, unknown> | null)?.[field];
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) {
    throw new Error(`${field} must be a non-negative integer`);
  }
  return n;
}

/**
 * The reference server (or its mutant `mutant`) as a fetch handler: tasks/stream from a
 * TaskEventLog, and the control methods of {@link TASK_CONTROL}.
 */
export function taskReferenceHandler(
  mutant?: TaskServerMutantName,
): (request: Request) => Promise<Response> {
  const log = mutant ? mutantTaskLog(mutant) : new TaskEventLog();
  const handler = taskStreamHandler(log, {
    eventsGoneStatus: 410,
    methods: {
      [TASK_CONTROL.create]: () => ({ taskId: log.createTask() }),
      [TASK_CONTROL.emit]: (params) => {
        const taskId = taskIdOf(params);
        let lastSeq = -1;
        for (let i = countOf(params, 'count'); i > 0; i--) {
          lastSeq = log.append(taskId, 'io.github.mcp-resumption.step', { i }).seq;
        }
        return { lastSeq };
      },
      [TASK_CONTROL.complete]: (params) => {
        log.complete(taskIdOf(params));
        return {};
      },
      [TASK_CONTROL.evict]: (params) => ({
        earliestSeq: log.trim(taskIdOf(params), countOf(params, 'before')),
      }),
    },
  });
  if (mutant !== 'bare-410') return handler;
  return async (request) => {
    const response = await handler(request);
    return response.status === 410 ? new Response(null, { status: 410 }) : response;
  };
}
