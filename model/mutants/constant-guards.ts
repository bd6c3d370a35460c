/**
 * The two constant guards the mutants put in place of a real one. Shared, so that a reader of a
 * mutant (the playground's diagram of the mutant's own machine) can tell by identity that a
 * guard was switched off (`never`) or made unconditional (`always`), even in a bundled page.
 */

/** A guard that never holds: the transition it guards is never taken. */
export const never = (): boolean => false;

/** A guard that always holds: the transitions after it, for the same event, are never taken. */
export const always = (): boolean => true;
