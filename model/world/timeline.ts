/** The world's timeline: what happened, when, by whom, and where the client machine was after. */
import type { ClientStateName } from '../client-machine.js';
import type { Observation } from '../observations.js';

/** Who acted. */
export type Actor = 'server' | 'network' | 'client';

/**
 * What a timeline entry records, as data: the renderers that fold runs of arrivals (`--brief`)
 * or draw a sequence diagram (`--mermaid`) read this, never the words of `action`.
 */
export type TimelineTag =
  /** The tool appended event `id` to its stream's log (its result when `result`). */
  | { k: 'emit'; id: number; result: boolean }
  /** An event of the session's other stream was appended to its log. */
  | { k: 'emit-other'; id: number }
  /** `Emit` while the tool is dead or finished. */
  | { k: 'tool-done' }
  /** `Evict`: the oldest retained event left the ring (`null`: nothing was retained). */
  | { k: 'evict'; id: number | null }
  /** A restart; `era`: into the 2026-07-28 era (no sessions, every GET answered 405). */
  | { k: 'restart'; durable: boolean; era?: '2026-07-28' }
  /** The application thread was saturated or released. */
  | { k: 'app'; saturated: boolean }
  | { k: 'drain' }
  /** `Advance(ms)`: virtual time passes. */
  | { k: 'advance'; ms: number }
  /** The network dropped the connection (`silent`: the client did not notice). */
  | { k: 'drop'; silent: boolean }
  /** `Reconnect`: the client abandons its stream to reconnect. */
  | { k: 'reconnect' }
  /** The client's back-off after a drop or an ended stream elapsed. */
  | { k: 'backoff' }
  /** The client's idle timer fired. */
  | { k: 'idle' }
  /** The client's own request timer fired and ended the pending call (a timeout, no outcome). */
  | { k: 'request-timeout' }
  /** A shared-writer keepalive could not be written: the socket is full. */
  | { k: 'keepalive-blocked' }
  /** The polling server ended a resumed stream it had written nothing on. */
  | { k: 'end-stream' }
  /**
   * The server answered a reconnect: the status, the floor it declared, what its log held
   * (`null`: nothing, only the head), whether the session was lost, and the ids it replays.
   */
  | {
      k: 'answer';
      status: number;
      floor: number | null;
      holds: readonly [number, number] | null;
      head: number;
      sessionLost: boolean;
      replays: readonly string[];
    }
  /** An observation fed to the client machine, in state `from` before it. */
  | { k: 'observe'; obs: Observation; from: ClientStateName };

/** One line of a timeline. */
export interface TimelineEntry {
  /** Virtual time. */
  t: number;
  actor: Actor;
  action: string;
  /** The same line as data. */
  tag: TimelineTag;
  /** The client machine's state after the action. */
  state: ClientStateName;
  /** The client's cursor after the action. */
  cursor: number;
  /** Index of the command (of the generated sequence) this entry belongs to; -1: the epilogue. */
  command: number;
}
