/**
 * The four outcomes of a reconnect, and the named reasons behind each escalation.
 */

/** What a reconnect turned out to be. */
export type Outcome = 'resumed' | 'delayed' | 'resumption-failed' | 'session-lost';

/** Every outcome, in the order the docs list them. */
export const OUTCOMES: readonly Outcome[] = [
  'resumed',
  'delayed',
  'resumption-failed',
  'session-lost',
];

/** Outcomes under which the client keeps consuming the stream. */
export function isAccepting(outcome: Outcome | null): boolean {
  return outcome === 'resumed' || outcome === 'delayed';
}

/**
 * Why the machine reached its latest decision. Each code maps to one rule of the decision
 * boundary (docs/model.md, "The rules").
 */
export type ReasonCode =
  | 'successor' // rule 6: first event is cursor+1
  | 'floor-covers' // rule 7: declared floor F <= c+1, no event yet
  | 'no-response' // rule 1
  | 'session-gone' // rule 2: 404 / 410
  | 'bad-status' // rule 3
  | 'not-durable' // rule 4: server says the session is not durable
  | 'epoch-changed' // rule 4: session epoch differs
  | 'cursor-below-floor' // rule 5
  | 'head-behind' // rule 5: the stated head is below the cursor
  | 'caught-up' // rule 5: the stated head is the cursor: nothing is owed
  | 'skip' // rule 6: id > c+1
  | 'rewind' // rule 6: id <= c
  | 'cross-stream' // rule 6: event of another stream
  | 'unproven' // rule 7: stream ended / proof timeout with no proof
  | 'unproven-data' // rule 6: data without an id before any event proved continuity
  | 'break' // after acceptance: an id that is not the successor of the one before
  | 'cursor-dropped' // rule 0: a reconnect without Last-Event-ID although events were received
  | 'no-cursor' // rule 0: a reconnect without Last-Event-ID
  | 'idless-data'; // rule 0: data without an id was delivered after the cursor

/** A decision with its reason in words. */
export interface Reason {
  code: ReasonCode;
  text: string;
}
