/** What a claim is and what it answers. */
import type { ConditionName } from '../world/validity.js';
import type { World } from '../world/world.js';

/** The names of the claims. */
export type ClaimName =
  | 'NoUnprovenAcceptance'
  | 'NoSilentPartialResult'
  | 'NoFalseAlarm'
  | 'Delivery'
  | 'NoWaitAfterFailure';

/** A claim's answer about one finished world. */
export interface ClaimVerdict {
  /** The claim applies to this world (its preconditions held). */
  applicable: boolean;
  /** It held (always true when not applicable). */
  ok: boolean;
  /** Why it broke (or why it did not apply). */
  why: string;
  /** Virtual time at which it broke, when known. */
  at?: number;
}

/** Options of a check. */
export interface ClaimOptions {
  /** A condition of validity not to require (EachConditionIsNecessary). */
  ignore?: ConditionName;
  /**
   * The conditions that failed in this finished world (all but `ignore`), when the caller has
   * them: judging every claim computes them once rather than once per claim.
   */
  broken?: readonly ConditionName[];
}

/** A named claim: a function of world state and ground truth. */
export interface Claim {
  name: ClaimName;
  /** The claim in one sentence. */
  text: string;
  /** The claim's verdict about a finished world. */
  check(w: World, options?: ClaimOptions): ClaimVerdict;
}

/** The verdict of a claim that held. */
export const HELD: ClaimVerdict = { applicable: true, ok: true, why: 'held' };

/** A claim that broke. */
export function broke(why: string, at?: number): ClaimVerdict {
  return at === undefined
    ? { applicable: true, ok: false, why }
    : { applicable: true, ok: false, why, at };
}

/** A claim whose preconditions did not hold. */
export function notApplicable(why: string): ClaimVerdict {
  return { applicable: false, ok: true, why };
}
