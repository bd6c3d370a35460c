/**
 * What an MCP client can observe about one SSE stream and its reconnects, written as the
 * events of the client machine. Nothing here is hidden server state: a status, a declared
 * floor, a session epoch, an event id, a keepalive, a timer firing.
 *
 * Timers are explicit events (`IDLE_TIMEOUT`, `PROOF_TIMEOUT`) so that the machine has no
 * `after` clauses: `xstate/graph` cannot traverse delays, and the simulated world drives its
 * own virtual clock.
 */

/** The stream was opened (the first POST/GET of a session, or a re-issue after escalation). */
export interface OpenObservation {
  type: 'OPEN';
  /** HTTP status of the opening request. Only 200 opens a stream. */
  status: number;
  /** Session epoch the stream is opened under, when the server states one. */
  epoch?: string;
  /**
   * The stream opened, when the opening names it (a `tasks/stream` call names its task): an
   * event of another stream on it is then a break from its first event on.
   */
  stream?: string;
  /**
   * The id the stream's events continue from, when the opening fixes where they start (a task
   * stream's first event is `seq` 0: cursor -1): its first event must then be cursor + 1.
   * Absent: any first id is the stream's start.
   */
  cursor?: number;
}

/** An SSE event that carries an id (an event without an id is {@link DataObservation}). */
export interface EventObservation {
  type: 'EVENT';
  /** The event's sequence number within its stream. */
  id: number;
  /** The stream the id belongs to, when ids name their stream. */
  stream?: string;
}

/**
 * An SSE event with data but no `id:` line. It is delivered to the application, but no
 * `Last-Event-ID` can name it: it can never be replayed, and it never proves continuity. A
 * stream that delivers one is not resumable past it until an event with an id follows.
 */
export interface DataObservation {
  type: 'DATA';
}

/** Bytes that are not delivered: an SSE comment (`: keepalive`) or an id-only block. */
export interface KeepaliveObservation {
  type: 'KEEPALIVE';
}

/** The client's idle timer fired: no bytes (or no events) for T ms. */
export interface IdleTimeoutObservation {
  type: 'IDLE_TIMEOUT';
}

/** The client's proof timer fired: a reconnect stayed unproven for too long. */
export interface ProofTimeoutObservation {
  type: 'PROOF_TIMEOUT';
}

/** The connection broke (reset, abort) without the server ending the stream. */
export interface DisconnectObservation {
  type: 'DISCONNECT';
}

/**
 * The server ended the stream cleanly. Since MCP 2025-11-25 a server may do so at any time
 * after it has sent an id, and the client polls: it reconnects with the same cursor.
 */
export interface EndObservation {
  type: 'END';
}

/** The client reconnected with `Last-Event-ID: cursor` (`null`: it sent no Last-Event-ID). */
export interface ReconnectObservation {
  type: 'RECONNECT';
  cursor: number | null;
  /** The stream the cursor belongs to, when ids name their stream. */
  stream?: string;
}

/** The server's answer to the latest reconnect. */
export interface ResponseObservation {
  type: 'RESPONSE';
  status: number;
  /** The lowest id the server states it can still replay. */
  floor?: number;
  /**
   * The highest id the server states it has written on the stream (its head), stated with the
   * replay (docs/spec.md, rule 5): `head = cursor` proves the reconnect caught up.
   */
  head?: number;
  /** The session epoch the server answers under. */
  epoch?: string;
  /** `false` when the server says the session is not durable (an implicit re-creation). */
  durable?: boolean;
}

/** Every observation the client machine accepts. */
export type Observation =
  | OpenObservation
  | EventObservation
  | DataObservation
  | KeepaliveObservation
  | IdleTimeoutObservation
  | ProofTimeoutObservation
  | DisconnectObservation
  | EndObservation
  | ReconnectObservation
  | ResponseObservation;

/** The `type` of every observation, in a fixed order (used by docs and coverage). */
export const OBSERVATION_TYPES = [
  'OPEN',
  'EVENT',
  'DATA',
  'KEEPALIVE',
  'IDLE_TIMEOUT',
  'PROOF_TIMEOUT',
  'DISCONNECT',
  'END',
  'RECONNECT',
  'RESPONSE',
] as const satisfies readonly Observation['type'][];
