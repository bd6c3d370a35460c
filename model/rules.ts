/**
 * The rules of the decision boundary, numbered as in docs/model.md (rule 0, then rules 1-7),
 * and which reason code belongs to which rule. The machine encodes the rules; this file only
 * names them for people.
 */
import type { ReasonCode } from './outcomes.js';

/** The rules in words, in the order they apply: `RULES[n]` is rule n. */
export const RULES: readonly string[] = [
  'no cursor, no resumption: a reconnect without Last-Event-ID, or after id-less data was delivered since the cursor -> resumption-failed',
  'no response before the next reconnect, a disconnect or the proof timeout -> resumption-failed',
  'status 404 or 410 -> session-lost',
  'any other non-200 status -> resumption-failed',
  'the server says the session is not durable, or its epoch differs -> resumption-failed',
  'a declared floor F with c < F-1 -> resumption-failed (events c+1..F-1 are gone); a stated head H < c -> resumption-failed; H = c -> resumed (caught up: nothing is owed, no clock fails it, the next event must be c+1)',
  'first event: id = c+1 -> resumed; id > c+1 skip, id <= c rewind, other stream, id-less data -> resumption-failed',
  'no event yet: floor F <= c+1 -> delayed while open; no floor -> unproven: a clean end is a poll (reconnect with the same cursor, same episode); a disconnect or the proof budget running out -> resumption-failed',
];

/** The rule each reason code belongs to (`break`, continuity after acceptance, counts as rule 6). */
export const RULE_OF: Record<ReasonCode, number> = {
  'no-response': 1,
  'session-gone': 2,
  'bad-status': 3,
  'not-durable': 4,
  'epoch-changed': 4,
  'cursor-below-floor': 5,
  'head-behind': 5,
  'caught-up': 5,
  successor: 6,
  skip: 6,
  rewind: 6,
  'cross-stream': 6,
  'unproven-data': 6,
  'floor-covers': 7,
  unproven: 7,
  break: 6,
  'cursor-dropped': 0,
  'no-cursor': 0,
  'idless-data': 0,
};
