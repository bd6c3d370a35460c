import type { Outcome, Reason } from './outcomes.js';

/**
 * The client machine's context: only what the client itself knows. There is deliberately no
 * field for the server's log, retention or head: the machine must decide from observations.
 *
 * Every field is bounded by the observations it is fed, so `xstate/graph` can walk the whole
 * graph when the path generator bounds the ids it offers.
 */
export interface ClientContext {
  /** The cursor: the last id accepted, or the one claimed by the latest reconnect. */
  cursor: number | null;
  /** The stream the cursor belongs to, when ids name their stream. */
  stream: string | null;
  /** Session epoch the current stream was opened under (from OPEN). */
  epoch: string | null;
  /**
   * Data without an id was delivered and no event since (rule 0.3, in delivery order): no
   * `Last-Event-ID` can name it, so no reconnect can prove it is replayed or skipped. The next
   * event delivered clears it, on an accepted stream or on a stream whose reconnect failed
   * (`idlessSinceCursor`).
   */
  idless: boolean;
  /** Replay floor declared by the latest response, if any. */
  floor: number | null;
  /** Outcome of the latest reconnect (`null` before the first reconnect or while pending). */
  outcome: Outcome | null;
  /** Why the machine made its latest decision. */
  reason: Reason | null;
}

/** The context a fresh client starts from. */
export const INITIAL_CONTEXT: ClientContext = {
  cursor: null,
  stream: null,
  epoch: null,
  idless: false,
  floor: null,
  outcome: null,
  reason: null,
};
