/**
 * Each property must be able to fail: every machine mutant is killed by one of the
 * differential properties within a bounded number of runs, and the test asserts the kill.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ClientMachine } from '../../model/client-machine.js';
import { MACHINE_MUTANTS } from '../../model/mutants/machine-mutants.js';
import { announceSeed } from '../support/seed.js';
import { deviationProperty, lockstepDifferential, resultDifferential } from './differential.js';

const seed = announceSeed('properties/machine/mutants.test.ts');

/** Runs allowed before a mutant counts as surviving. */
const BUDGET = 5000;

/** Each property, checked against a machine: `failed` and the runs it took. */
const properties: Record<string, (m?: ClientMachine) => { failed: boolean; numRuns: number }> = {
  resultDifferential: (m) => fc.check(resultDifferential(m), { seed, numRuns: BUDGET }),
  deviationProperty: (m) => fc.check(deviationProperty(m), { seed, numRuns: BUDGET }),
  lockstepDifferential: (m) => fc.check(lockstepDifferential(m), { seed, numRuns: BUDGET }),
};

describe('machine mutants are killed', () => {
  for (const mutant of MACHINE_MUTANTS) {
    it(`${mutant.name}: ${mutant.description}`, () => {
      const kills = Object.entries(properties).flatMap(([name, prop]) => {
        const details = prop(mutant.machine);
        return details.failed ? [{ name, runs: details.numRuns }] : [];
      });
      expect(kills.length, `${mutant.name} survived every property`).toBeGreaterThan(0);
      for (const k of kills) expect(k.runs).toBeLessThanOrEqual(BUDGET);
    });
  }

  // The real machine passing the same properties is asserted in differential.test.ts.
});
