/**
 * NoFalseAlarm: when the seed's conditions of validity hold, the client never mistakes silence
 * for loss (its idle timer never fires while the connection and the session are alive), never
 * ends in resumption-failed, and ends in session-lost only when the session really was lost.
 */
import { clientState } from '../world/client.js';
import { brokenConditions } from '../world/validity.js';
import { broke, HELD, notApplicable, type Claim } from './types.js';

/** The claim. */
export const noFalseAlarm: Claim = {
  name: 'NoFalseAlarm',
  text: 'under the conditions of validity the client never declares a live stream stalled and never escalates unless the session really was lost',
  check(w, options = {}) {
    const broken = options.broken ?? brokenConditions(w, options.ignore);
    const state = clientState(w.client);
    const falseLoss = state === 'sessionLost' && w.truth.sessionLostAt === null;
    if (broken.length > 0) {
      // A cursor out of the retained window is a lost cursor, not a lost session: the client
      // must escalate, yet saying the session is gone throws away a live one (and a task that
      // still holds its result: events_gone carried by HTTP 410, SEP-2694).
      if (falseLoss && broken.every((c) => c === 'cursorInWindow'))
        return broke(
          `reported session lost for a cursor out of the retained window, but the session survived: ${w.client.error ?? ''}`,
        );
      return notApplicable(`conditions not held: ${broken.join(', ')}`);
    }
    const falseIdle = w.truth.idle.find((i) => i.connectionUp);
    if (falseIdle)
      return broke(
        `idle timer fired at ${falseIdle.t} ms while the connection and session were alive: backpressure or quiet mistaken for loss`,
        falseIdle.t,
      );
    if (state === 'resumptionFailed')
      return broke(`escalated: ${w.client.error ?? 'resumption-failed'}`);
    if (falseLoss)
      return broke(`reported session lost, but the session survived: ${w.client.error ?? ''}`);
    return HELD;
  },
};
