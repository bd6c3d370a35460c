/**
 * One stream the guard follows (a track) and the two questions it asks of a track's machine
 * state. The core (guard-core.ts) holds the tracks; the body reader and the request handling
 * read and change them through it.
 */
import { PENDING_STATES, type ClientStateName } from '../../model/client-machine.js';
import type { StreamResumptionError } from '../reference.js';
import type { MachineState } from '../trace/engine.js';
import type { MachineTrack } from './machine-track.js';

/** The (flat) state a machine state is in. */
export function stateOf(state: MachineState): ClientStateName {
  return state.value as ClientStateName;
}

/** `true` while a reconnect is still being judged (as `isPending` of model/run.ts). */
export function isPending(state: MachineState): boolean {
  return PENDING_STATES.includes(stateOf(state));
}

/** What a track needs of its session's cursor index (cursor-index.ts). */
export interface TrackCursors {
  remember(track: Track, id: string): void;
  forget(track: Track): void;
}

/** One followed stream: a request's stream (or the standalone GET) and its resumptions. */
export interface Track {
  id: number;
  /** The stream's machine; `snapshot` reads and sets its state. */
  machine: MachineTrack;
  snapshot: MachineState;
  /** The last id delivered: the key a later `Last-Event-ID` names. */
  lastId: string | null;
  /**
   * The session it belongs to: the endpoint and the `Mcp-Session-Id` of the request that opened
   * it (ids are unique within a session only, so a `Last-Event-ID` names a stream of its own
   * session, see guard-wire.ts `scopeOf`).
   */
  scope: string;
  /** The cursor index of its session (session-cursors.ts, a `CursorIndex`). */
  cursors: TrackCursors;
  /** The JSON-RPC response of its request arrived: nothing more is owed. */
  completed: boolean;
  /** The standalone GET stream: reconnects without a cursor until it received an id. */
  plain: boolean;
  /** Set when the stream failed: every later GET for it is refused with this error. */
  failure: StreamResumptionError | null;
  /**
   * The `maxEventBytes` an event of this stream went over (the guard gave it up unread): a later
   * failure names that cause, not the machine's "no response" (the answer came, unread).
   */
  tooLarge?: number;
  /** The JSON-RPC request it answers, as sent (`null`: the standalone stream). */
  request: Record<string, unknown> | null;
  /** The `Last-Event-ID` of the current reconnect (`null`: none, or a reconnect without one). */
  cursor: string | null;
  /** The guard ended the call with its error response: later reconnects get a 405. */
  settled: boolean;
  /** A reconnect was made on this track (decision lines follow reconnects only). */
  reconnected: boolean;
  /** `t` of the current episode's first reconnect. */
  episodeT: number;
  /** The proof budget of the current episode. */
  budget?: NodeJS.Timeout;
  /** A resume's 200 not yet fed to the machine: it waits for the first SSE item (an ack?). */
  held: boolean;
  /** The words of the server's refusal of the current reconnect (a JSON-RPC error's message). */
  serverSaid?: string;
  /** When the held 200's headers came (the guard's clock): its line carries that time. */
  heldAt: number;
  /** Errors the stream being read, when the budget runs out on it. */
  giveUp?: (e: StreamResumptionError) => void;
}
