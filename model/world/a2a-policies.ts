/**
 * How an A2A server answers `SubscribeToTask`: the server of the A2A world. The server is the
 * world's server (log, retention, restarts, the tool's events as the task's updates); only its
 * answer to a resubscribe differs, and it depends on the era the world speaks:
 *
 * - `1.0` and `dev-1.1`: the JS SDK 1.3.0's resubscribe (docs/world.md, "The A2A world"): the tap
 *   on the live bus is attached, the task is loaded from the store and sent as the first frame (a
 *   `Task` snapshot), then whatever the bus publishes goes out. Nothing is ever replayed as an
 *   event: what the client missed is folded into the snapshot. A task in a terminal state is
 *   refused with `UnsupportedOperationError` (-32004, sent with HTTP 200).
 * - `1986` (the epic as proposed, docs/spec-changes.md): the call carries the client's last
 *   generation; the server replays every event after it from one ordered log, then goes live, or
 *   answers a gap error with the earliest generation it can still send.
 *
 * Each faulty policy differs from `a2a-sdk` in one way. The answer is in the world's numbers
 * (ids from 1); the generation of an id is {@link generationOf}'s, and the snapshot's facts are
 * written here in the A2A vocabulary, as the server sends them (model/world/a2a-wire.ts writes the
 * client's side).
 */
import type { WireFact } from '../bindings/binding.js';
import { UNSUPPORTED_OPERATION } from '../bindings/a2a.js';
import { frameFact, generationOf } from './a2a-numbers.js';
import { eraOf, type A2aPolicyName, type WorldConfig } from './config.js';
import { END, TOOL_STREAM, type EventFrame } from './frames.js';
import { after, type Answer } from './answer.js';
import { floorOf, type ServerState } from './server.js';

/** The JSON-RPC code of the gap error the #1986 proposal asks for (docs/spec-changes.md). */
export const GENERATIONS_GONE = -32010;

/**
 * The status the world's client is handed for a JSON-RPC error (the SDK sends it with HTTP 200):
 * any status but 200 closes the connection in the world; the wire writes the body.
 */
export const A2A_ERROR_STATUS = 400;

/** The task's state, as its snapshot states it. */
function stateOf(s: ServerState, cfg: WorldConfig): string {
  return s.toolEvents >= cfg.N ? 'TASK_STATE_COMPLETED' : 'TASK_STATE_WORKING';
}

/** The `Task` snapshot frame, with the generation of the last event folded into it (era 1.0: none). */
export function snapshotFact(
  s: ServerState,
  cfg: WorldConfig,
  policy: string,
  folded: number,
  more: Record<string, unknown> = {},
): WireFact {
  return frameFact({
    task: {
      id: TOOL_STREAM,
      status: { state: stateOf(s, cfg) },
      ...(eraOf(cfg) === '1.0' ? {} : { generation: generationOf(policy, folded) }),
      ...more,
    },
  });
}

/** A JSON-RPC error, as the JS SDK sends it: HTTP 200 with a JSON-RPC error body. */
function errorFact(code: number, message: string, data?: Record<string, unknown>): WireFact {
  return {
    type: 'a2a/error',
    status: 200,
    error: { code, message, ...(data === undefined ? {} : { data }) },
  };
}

/** A refusal; `replayFloor`: the lowest id the server could have replayed (the ground truth's). */
function refused(
  replayFloor: number,
  code: number,
  message: string,
  data?: Record<string, unknown>,
): Answer {
  return {
    status: A2A_ERROR_STATUS,
    frames: [],
    live: false,
    facts: [errorFact(code, message, data)],
    replayFloor,
  };
}

/** The latest retained event, when it is the head: what a tap that is late re-sends. */
function latest(s: ServerState): EventFrame[] {
  const last = s.log[s.log.length - 1];
  return last !== undefined && last.id === s.head ? [last] : [];
}

/**
 * The JS SDK 1.3.0's resubscribe (eras 1.0 and dev-1.1): a terminal task is refused (-32004);
 * otherwise the snapshot the store holds, then the live tap (no replay: the server keeps no
 * events, so nothing after the snapshot's last folded event is owed as an event, and the answer's
 * `replayFloor` says so to the ground truth).
 *
 * `cursor` is the client's last event: the wire carries none in these eras. The world reads it
 * only to place the faults where they can happen: an event the client has was persisted before
 * the old stream sent it (the SDK persists, then yields), so only a later one can be in the
 * publish-to-persist window.
 */
function snapshotThenTap(
  s: ServerState,
  cfg: WorldConfig,
  policy: A2aPolicyName,
  cursor: number,
): Answer {
  if (s.toolEvents >= cfg.N)
    return refused(
      s.head + 1,
      UNSUPPORTED_OPERATION,
      `Task ${TOOL_STREAM} is in a terminal state and cannot be subscribed to.`,
    );
  switch (policy) {
    case 'a2a-seam-loss': {
      // The latest event was published (the tap attached after it) but is not persisted yet when
      // the snapshot is read: it is in neither.
      const folded = s.head > cursor ? s.head - 1 : s.head;
      return tap(s, cfg, policy, folded, []);
    }
    case 'a2a-seam-duplicate':
      // The snapshot read is slow: the latest event, persisted before it finished, is folded into
      // the snapshot, and the tap, attached before it was published, sends it too.
      return tap(s, cfg, policy, s.head, latest(s));
    case 'a2a-zombie':
      // Restarted with a persistent store: the task is there, its executor is not. No bus: the
      // snapshot, then a clean close (JS SDK PR #542).
      if (s.restarted && !s.toolAlive)
        return { ...tap(s, cfg, policy, s.head, [END]), live: false };
      return tap(s, cfg, policy, s.head, []);
    default:
      return tap(s, cfg, policy, s.head, []);
  }
}

function tap(
  s: ServerState,
  cfg: WorldConfig,
  policy: string,
  folded: number,
  frames: EventFrame[] | (typeof END)[],
): Answer {
  return {
    status: 200,
    frames: frames as Answer['frames'],
    live: true,
    facts: [snapshotFact(s, cfg, policy, folded)],
    replayFloor: s.head + 1,
  };
}

/**
 * Epic #1986 as proposed: `SubscribeToTask` with the client's last generation. Every event after
 * it is replayed from the log, in order, then live (a terminal task: through its terminal event,
 * then the stream closes); a generation the log no longer holds gets the gap error with the
 * earliest generation it still has. The faults keep their seams: `a2a-seam-loss` serves the
 * cursor as "the snapshot, then live events above the cursor" and misses the event in its
 * publish-to-persist window; `a2a-seam-duplicate` sends the replay's last event again from its
 * live tap; `a2a-zombie` says at once that nothing executes the task (an instance epoch).
 */
function replayOrGap(
  s: ServerState,
  cfg: WorldConfig,
  policy: A2aPolicyName,
  cursor: number,
): Answer {
  const floor = floorOf(s);
  if (cursor + 1 < floor)
    return refused(floor, GENERATIONS_GONE, 'Task events are no longer available', {
      reason: 'generations_gone',
      earliestGeneration: generationOf(policy, floor),
    });
  const replay = after(s.log, cursor);
  const done = s.toolEvents >= cfg.N;
  // The first frame states the task as it is now: its generation is the latest the server has
  // assigned, so the events after the cursor up to it are owed, and none when it is the cursor.
  const first = snapshotFact(s, cfg, policy, s.head);
  const answer = (frames: Answer['frames'], facts: WireFact[] = [first]): Answer => ({
    status: 200,
    frames: done ? [...frames, END] : frames,
    live: !done,
    facts,
    replayFloor: floor,
  });
  switch (policy) {
    case 'a2a-seam-loss':
      return answer(s.head > cursor ? replay.slice(0, -1) : replay);
    case 'a2a-seam-duplicate':
      return answer(replay.length > 0 ? [...replay, replay[replay.length - 1]!] : replay);
    case 'a2a-zombie':
      // The proposal's restart signal: the first frame says that nothing executes the task.
      if (s.restarted && !s.toolAlive)
        return {
          ...answer([END], [snapshotFact(s, cfg, policy, s.head, { executing: false })]),
          live: false,
        };
      return answer(replay);
    default:
      return answer(replay);
  }
}

/**
 * The answer of an A2A server running `policy` to a resubscribe from the world's cursor `cursor`
 * (`null`: the client has none, which the world's A2A client never lacks: the opening `Task`
 * frame is generation 1).
 */
export function answerA2a(
  s: ServerState,
  cfg: WorldConfig,
  policy: A2aPolicyName,
  cursor: number | null,
): Answer {
  const c = cursor ?? 0;
  return eraOf(cfg) === '1986'
    ? replayOrGap(s, cfg, policy, c)
    : snapshotThenTap(s, cfg, policy, c);
}
