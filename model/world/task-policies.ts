/**
 * How a task-stream receiver (SEP-2694) answers `tasks/stream {taskId, after}`: the server of
 * the task-stream world. The receiver is the world's server (log, retention, restarts, the
 * tool's events as the task's events, ids as `seq`); only its answer to a resume differs. An
 * answer the SSE world has no word for (`events_gone`) travels as the wire fact the receiver
 * sends (`facts`), which the client's binding translator reads like any recorded line
 * (model/world/task-wire.ts). Each faulty policy differs from `tasks-honest` in one way.
 *
 * The receiver works in the world's numbers (ids from 1; cursor 0: a call without `after`);
 * the client's wire writes them as SEP-2694's (`seq = id - 1`, model/world/task-wire.ts), and so
 * does `earliestSeq` here.
 */
import type { WireFact } from '../bindings/binding.js';
import type { TaskPolicyName } from './config.js';
import { TOOL_STREAM, type EventFrame } from './frames.js';
import { after, type Answer } from './answer.js';
import { floorOf, type ServerState } from './server.js';

/** The JSON-RPC error code of SEP-2694's `events_gone` example. */
export const EVENTS_GONE_CODE = -32010;

/** The `events_gone` error, as the receiver sends it (HTTP `status` 200: a JSON-RPC error). */
function eventsGone(s: ServerState, status: number): WireFact {
  return {
    type: 'tasks/error',
    ...(status === 200 ? {} : { status }),
    error: {
      code: EVENTS_GONE_CODE,
      message: 'Task events are no longer available',
      data: { reason: 'events_gone', taskId: TOOL_STREAM, earliestSeq: floorOf(s) - 1 },
    },
  };
}

/**
 * SEP-2694's receiver: every retained event after `after`, then live; `events_gone` (with
 * `earliestSeq`, over HTTP `goneStatus`) when events after `after` are no longer retained;
 * without `after`, every retained event from the earliest.
 */
function replayOrGone(s: ServerState, c: number | null, goneStatus: number): Answer {
  if (c === null) return { status: 200, frames: [...s.log], live: true };
  if (c + 1 < floorOf(s)) {
    return { status: goneStatus, frames: [], live: false, facts: [eventsGone(s, goneStatus)] };
  }
  return { status: 200, frames: after(s.log, c), live: true };
}

/** The retained events at or below `c`, the last two: what a duplicating receiver replays. */
function duplicatesOf(s: ServerState, c: number): EventFrame[] {
  return s.log.filter((e) => e.id <= c).slice(-2);
}

/**
 * A receiver whose counter restarted under the same task id: it numbers what it sends from 1
 * again, so every `seq` it sends is at or below the cursor (a duplicate to the client), and no
 * new event reaches the resume. Only the proof budget ends the wait.
 */
function restartedCounter(s: ServerState, c: number | null): Answer {
  if (c === null) return replayOrGone(s, c, 200);
  const renumbered = after(s.log, c)
    .slice(0, c)
    .map((e, i) => ({ ...e, id: i + 1 }));
  return { status: 200, frames: renumbered, live: false };
}

/**
 * The answer of a task-stream receiver running `policy` to a call with cursor `cursor` (0 or
 * `null`: the call had no `after`).
 */
export function answerTask(s: ServerState, policy: TaskPolicyName, cursor: number | null): Answer {
  const c = cursor === 0 ? null : cursor;
  switch (policy) {
    case 'tasks-honest':
      return replayOrGone(s, c, 200);
    case 'tasks-gone-410':
      return replayOrGone(s, c, 410);
    case 'tasks-duplicates': {
      const a = replayOrGone(s, c, 200);
      return c === null || !a.live ? a : { ...a, frames: [...duplicatesOf(s, c), ...a.frames] };
    }
    case 'tasks-restarted-counter':
      return restartedCounter(s, c);
    case 'tasks-skip': {
      // Never skip silently (SEP-2694), broken: the first retained event after the cursor.
      const a = replayOrGone(s, c, 200);
      return c === null || !a.live ? a : { ...a, frames: a.frames.slice(1) };
    }
  }
}
