/**
 * The observations offered to `xstate/graph` at each snapshot. Ids are relative to the cursor
 * and the cursor is capped, so the graph is finite and small enough to walk whole.
 */
import type { Observation } from '../../model/observations.js';
import type { ClientSnapshot } from '../../model/run.js';

/** Highest cursor the generator lets the client reach. */
export const CURSOR_CAP = 2;

/** Every observation that can be offered in `snapshot`. */
export function pathEvents(snapshot: ClientSnapshot): Observation[] {
  const c = snapshot.context.cursor;
  const base = c ?? 0;
  const events: Observation[] = [
    { type: 'OPEN', status: 200, epoch: 'e1' },
    { type: 'OPEN', status: 503 },
    { type: 'DATA' },
    { type: 'KEEPALIVE' },
    { type: 'IDLE_TIMEOUT' },
    { type: 'PROOF_TIMEOUT' },
    { type: 'DISCONNECT' },
    { type: 'END' },
    { type: 'RECONNECT', cursor: c },
    { type: 'RECONNECT', cursor: null },
    { type: 'RESPONSE', status: 200 },
    { type: 'RESPONSE', status: 404 },
    { type: 'RESPONSE', status: 410 },
    { type: 'RESPONSE', status: 500 },
    { type: 'RESPONSE', status: 200, durable: false },
    { type: 'RESPONSE', status: 200, epoch: 'e2' },
    { type: 'RESPONSE', status: 200, floor: base + 1 },
    { type: 'RESPONSE', status: 200, floor: base + 3 },
    // Stated heads: caught up (with a floor and without), behind the cursor, and ahead of it.
    { type: 'RESPONSE', status: 200, floor: base + 1, head: base },
    { type: 'RESPONSE', status: 200, head: base },
    { type: 'RESPONSE', status: 200, floor: base + 1, head: base - 1 },
    { type: 'RESPONSE', status: 200, floor: base + 1, head: base + 2 },
    { type: 'EVENT', id: base + 2, stream: 's1' },
    { type: 'EVENT', id: base, stream: 's1' },
  ];
  // Only below the cap may an event extend the cursor (an event of another stream is the
  // first event of a fresh stream, so it too can become the cursor).
  if (base < CURSOR_CAP) {
    events.push(
      { type: 'EVENT', id: base + 1, stream: 's1' },
      { type: 'EVENT', id: base + 1, stream: 'other' },
    );
  }
  return events;
}
