/**
 * NoWaitAfterFailure: once the client machine has decided resumption-failed or session-lost,
 * the application's pending call ends within ε of that decision, rejected with an error that
 * carries the decided outcome, and not by a timer of the client's own (a request timeout). The
 * seed's rule for a failed resumption is "do not wait: re-issue the call or surface a
 * partial-result error"; a call that rejects only when its request timeout runs out (SDK 1.x and
 * 2.x: `Request timed out`, 60 s by default) is indistinguishable from a slow tool, and names no
 * outcome the application could act on. Applies to every world in which the machine decided a
 * failure; it reads the client's state only (when the machine decided, how the call ended).
 */
import type { CallEnd, ClientState } from '../world/client.js';
import { broke, HELD, notApplicable, type Claim } from './types.js';

/**
 * ε, virtual ms: how long after the decision the call may still end. The model's client ends it
 * in the same instant; ε is the runtime's tolerance (a call settles within the proof budget plus
 * 500 ms of the failing verdict), so no client that waits for a timer of seconds passes.
 */
export const SETTLE_EPSILON_MS = 500;

/** What the machine decided, as the outcome the call's error must carry. */
function decidedOutcome(c: ClientState): CallEnd['outcome'] {
  return c.snap.value === 'sessionLost' ? 'session-lost' : 'resumption-failed';
}

/**
 * The claim's verdict as a code (the verify abstraction keeps it): 0, no failure decided and the
 * call pending; 1, a failure decided and the call still pending; 2, the call ended with no
 * failure decided before it (not applicable); 3, the call ended as the claim asks; 4, it did not.
 */
export function callCode(c: ClientState): number {
  if (c.call === null) return c.decidedAt === null ? 0 : 1;
  if (c.decidedAt === null || c.call.at < c.decidedAt) return 2;
  return whyLate(c, c.call, c.decidedAt) === null ? 3 : 4;
}

/** Why a call that ended after a decision at `at` breaks the claim (`null`: it does not). */
function whyLate(c: ClientState, call: CallEnd, at: number): string | null {
  const outcome = decidedOutcome(c);
  const after = call.at - at;
  if (call.by === 'request-timeout')
    return `the machine decided ${outcome} at ${at} ms, but the call waited for the client's own request timer and rejected ${after} ms later with "${call.error ?? ''}", naming no outcome`;
  if (after > SETTLE_EPSILON_MS)
    return `the machine decided ${outcome} at ${at} ms, but the call ended only ${after} ms later (ε = ${SETTLE_EPSILON_MS} ms)`;
  if (call.outcome !== outcome)
    return `the machine decided ${outcome}, but the call's error carries ${call.outcome ?? 'no outcome'}: ${call.error ?? 'no error'}`;
  return null;
}

/** The claim. */
export const noWaitAfterFailure: Claim = {
  name: 'NoWaitAfterFailure',
  text: 'once the client decides resumption-failed or session-lost, the pending call ends within ε with an error carrying that outcome, not by a timer of its own',
  check(w) {
    const c = w.client;
    const at = c.decidedAt;
    if (at === null) return notApplicable('the client decided no failure');
    if (c.call === null)
      return broke(
        `the machine decided ${decidedOutcome(c)} at ${at} ms, but the call is still pending: the application waits`,
        at,
      );
    if (c.call.at < at) return notApplicable('the call had ended before the decision');
    const why = whyLate(c, c.call, at);
    return why === null ? HELD : broke(why, c.call.at);
  },
};
