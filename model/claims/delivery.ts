/**
 * Delivery: when the conditions of validity hold and the session was not really lost, the
 * client eventually delivers every event of the tool exactly once and reports it complete.
 */
import { brokenConditions } from '../world/validity.js';
import { broke, HELD, notApplicable, type Claim } from './types.js';

/** The claim. */
export const delivery: Claim = {
  name: 'Delivery',
  text: 'under the conditions of validity, unless the session was really lost, every event is delivered exactly once and the tool completes',
  check(w, options = {}) {
    const broken = options.broken ?? brokenConditions(w, options.ignore);
    if (broken.length > 0) return notApplicable(`conditions not held: ${broken.join(', ')}`);
    if (w.truth.sessionLostAt !== null) return notApplicable('the session was really lost');
    const c = w.client;
    const n = w.cfg.N;
    // Priming events share the stream's id sequence: every id once, in order, N of them tools.
    const tools = c.delivered.filter((e) => !e.priming).length;
    const ok = tools === n && c.delivered.every((e, i) => e.id === i + 1);
    if (c.done === 'complete' && ok) return HELD;
    return broke(
      `delivered ${tools} of ${n} tool events and ended ${c.done ?? 'undecided'}${c.error ? ` (${c.error})` : ''}`,
    );
  },
};
