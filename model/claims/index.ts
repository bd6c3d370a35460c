/**
 * The named claims of the simulated world. Each is a function of the finished world's state and
 * its ground truth; the client never sees the ground truth, the claims do.
 */
import { delivery } from './delivery.js';
import { noFalseAlarm } from './no-false-alarm.js';
import { noSilentPartialResult } from './no-silent-partial-result.js';
import { noUnprovenAcceptance } from './no-unproven-acceptance.js';
import { noWaitAfterFailure } from './no-wait-after-failure.js';
import type { Claim, ClaimName, ClaimOptions, ClaimVerdict } from './types.js';
import type { World } from '../world/world.js';

export * from './types.js';
export { delivery, noFalseAlarm, noSilentPartialResult, noUnprovenAcceptance, noWaitAfterFailure };

/**
 * Every claim: the two safety claims first, then the two that hold under validity, then the
 * one about the application's call after a failure (it holds against every server too; it comes
 * last so that the claims before it keep their order in reports and kill tables).
 */
export const CLAIMS: readonly Claim[] = [
  noUnprovenAcceptance,
  noSilentPartialResult,
  noFalseAlarm,
  delivery,
  noWaitAfterFailure,
];

/** The claim named `name`. */
export function claimNamed(name: ClaimName): Claim {
  const c = CLAIMS.find((x) => x.name === name);
  if (!c) throw new Error(`no claim ${name}`);
  return c;
}

/** The first of `claims` that breaks in `w`, with its verdict, or `null`. */
export function firstBroken(
  w: World,
  claims: readonly Claim[] = CLAIMS,
  options?: ClaimOptions,
): { claim: Claim; verdict: ClaimVerdict } | null {
  for (const claim of claims) {
    const verdict = claim.check(w, options);
    if (!verdict.ok) return { claim, verdict };
  }
  return null;
}
