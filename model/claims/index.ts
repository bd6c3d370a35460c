/**
 * The named claims of the simulated world. Each is a function of the finished world's state and
 * its ground truth; the client never sees the ground truth, the claims do.
 */
import { delivery } from './delivery.js';
import { noFalseAlarm } from './no-false-alarm.js';
import { noSilentPartialResult } from './no-silent-partial-result.js';
import { noUnprovenAcceptance } from './no-unproven-acceptance.js';
import type { Claim, ClaimName, ClaimOptions, ClaimVerdict } from './types.js';
import type { World } from '../world/world.js';

export * from './types.js';
export { delivery, noFalseAlarm, noSilentPartialResult, noUnprovenAcceptance };

/** Every claim: the two safety claims first, then the two that hold under validity. */
export const CLAIMS: readonly Claim[] = [
  noUnprovenAcceptance,
  noSilentPartialResult,
  noFalseAlarm,
  delivery,
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
