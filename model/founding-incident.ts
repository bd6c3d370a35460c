/**
 * The founding incident's numbers, as the founding essay gives them: the client reconnected
 * with cursor 41, the server kept a 64-event ring and had reached event 130, and it answered
 * 200 from event 130. Everything else follows: the ring held 67..130 (42..66 were evicted), and
 * 42..129 never reached the client (67..129 were still held, and skipped). The CLI's stories,
 * the world's scenario and the pages take their numbers from here;
 * properties/docs/incident-numbers.test.ts holds the pages equal to it.
 */

/** What the essay states. */
export const FOUNDING_INCIDENT = { cursor: 41, ring: 64, head: 130 } as const;

/** An inclusive range of event ids. */
export interface IdRange {
  from: number;
  to: number;
}

/** `42..129`. */
export const showRange = (r: IdRange): string => `${r.from}..${r.to}`;

/** What follows from the essay's numbers. */
export const INCIDENT_RANGES: {
  /** What the ring still held when the client reconnected. */
  held: IdRange;
  /** What the ring had dropped after the cursor. */
  evicted: IdRange;
  /** What the client never received: everything between the cursor and the first event. */
  lost: IdRange;
} = {
  held: { from: FOUNDING_INCIDENT.head - FOUNDING_INCIDENT.ring + 1, to: FOUNDING_INCIDENT.head },
  evicted: {
    from: FOUNDING_INCIDENT.cursor + 1,
    to: FOUNDING_INCIDENT.head - FOUNDING_INCIDENT.ring,
  },
  lost: { from: FOUNDING_INCIDENT.cursor + 1, to: FOUNDING_INCIDENT.head - 1 },
};
