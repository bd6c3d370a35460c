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
    if (broken.length > 0) return notApplicable(`conditions not held: ${broken.join(', ')}`);
    const falseIdle = w.truth.idle.find((i) => i.connectionUp);
    if (falseIdle)
      return broke(
        `idle timer fired at ${falseIdle.t} ms while the connection and session were alive: backpressure or quiet mistaken for loss`,
        falseIdle.t,
      );
    const state = clientState(w.client);
    if (state === 'resumptionFailed')
      return broke(`escalated: ${w.client.error ?? 'resumption-failed'}`);
    if (state === 'sessionLost' && w.truth.sessionLostAt === null)
      return broke(`reported session lost, but the session survived: ${w.client.error ?? ''}`);
    return HELD;
  },
};
