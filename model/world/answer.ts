/**
 * The server's answer to a reconnect, and the replay slice every replaying policy sends: what
 * both the SSE policies (./policies.ts) and the task-stream policies (./task-policies.ts) build
 * on, so that neither imports the other back.
 */
import type { WireFact } from '../bindings/binding.js';
import type { EventFrame, Frame } from './frames.js';

/** The server's answer: headers the client sees, then frames on the new stream. */
export interface Answer {
  status: number;
  /** Declared replay floor. */
  floor?: number;
  /** Stated head (with the floor, docs/spec.md#caught-up). */
  head?: number;
  /** Session epoch the answer is given under. */
  epoch?: string;
  /** `false`: the server says the session is not durable (an explicit re-creation). */
  durable?: boolean;
  /** Frames the writer starts with (the replay). */
  frames: Frame[];
  /** New tool events follow the replay on this connection. */
  live: boolean;
  /**
   * A task-stream answer the headers cannot say (`events_gone`): the wire facts the receiver
   * sends, read by the client's binding translator (model/world/task-policies.ts).
   */
  facts?: readonly WireFact[];
  /**
   * The lowest id the server could replay for this answer, for the ground truth. Absent: the
   * log's floor. A server that keeps no events (the A2A SDK's snapshot-then-tap) replays
   * nothing: its floor is past its head.
   */
  replayFloor?: number;
}

/**
 * The events of `log` after id `c`. A log holds contiguous ids (appended at the head, evicted
 * from the tail), so they are a suffix found by arithmetic, not by a scan: with `priming=all`
 * and no retention limit the log grows by one id per reconnect, and a scan per reconnect made
 * a long world quadratic. A log whose ends do not span its length is scanned.
 */
export function after(log: readonly EventFrame[], c: number): EventFrame[] {
  const n = log.length;
  if (n === 0) return [];
  const first = log[0]!.id;
  if (log[n - 1]!.id - first !== n - 1) return log.filter((e) => e.id > c);
  return log.slice(Math.min(n, Math.max(0, c + 1 - first)));
}
