/**
 * Each property must be able to fail: every machine mutant is killed by one of the
 * differential properties within a bounded number of runs, and the test asserts the kill.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clientMachine, type ClientMachine } from '../../model/client-machine.js';
import { never } from '../../model/mutants/constant-guards.js';
import { MACHINE_MUTANTS } from '../../model/mutants/machine-mutants.js';
import { announceSeed } from '../support/seed.js';
import { deviationProperty, lockstepDifferential, resultDifferential } from './differential.js';

const seed = announceSeed('properties/machine/mutants.test.ts');

/** Runs allowed before a mutant counts as surviving. */
const BUDGET = 5000;

/**
 * Each property, checked against a machine: `failed` and the runs it took. The lockstep
 * differential comes first: it walks every observation, and it alone kills each mutant of the
 * zoo, so the others rarely run their whole budget on a mutant they cannot tell apart.
 */
const properties: Record<string, (m?: ClientMachine) => { failed: boolean; numRuns: number }> = {
  lockstepDifferential: (m) =>
    fc.check(lockstepDifferential(m), { seed, numRuns: BUDGET, endOnFailure: true }),
  resultDifferential: (m) =>
    fc.check(resultDifferential(m), { seed, numRuns: BUDGET, endOnFailure: true }),
  deviationProperty: (m) =>
    fc.check(deviationProperty(m), { seed, numRuns: BUDGET, endOnFailure: true }),
};

describe('machine mutants are killed', () => {
  for (const mutant of MACHINE_MUTANTS) {
    it(`${mutant.name}: ${mutant.description}`, () => {
      // The first property that kills it is enough: the others would each run their whole
      // budget on a mutant they do not catch, and a kill is not shrunk (endOnFailure), since
      // only the kill and its run count are asserted here.
      let kill: { name: string; runs: number } | undefined;
      for (const [name, prop] of Object.entries(properties)) {
        const details = prop(mutant.machine);
        if (details.failed) {
          kill = { name, runs: details.numRuns };
          break;
        }
      }
      expect(kill, `${mutant.name} survived every property`).toBeDefined();
      expect(kill!.runs).toBeLessThanOrEqual(BUDGET);
    });
  }

  // The real machine passing the same properties is asserted in differential.test.ts.
});

/**
 * The seed's own policy on the documented deviation: a declared floor that covers the cursor
 * does not let the client wait, so an empty answer is never delayed. No mutant of the zoo differs from the
 * model there, so this one is kept beside the property it exists for.
 */
const floorNeverWaits: ClientMachine = clientMachine.provide({
  guards: { floorCoversCursor: never },
});

describe('each property kills a mutant of its own', () => {
  const byName = (name: string) => MACHINE_MUTANTS.find((m) => m.name === name)!.machine;
  it.each([
    ['resultDifferential', 'accepts-skip', byName('accepts-skip')],
    ['lockstepDifferential', 'keepalive-is-proof', byName('keepalive-is-proof')],
    ['deviationProperty', 'floor-never-waits (the seed’s policy)', floorNeverWaits],
  ] as const)('%s kills %s', (property, _name, machine) => {
    const details = properties[property]!(machine);
    expect(details.failed).toBe(true);
    expect(details.numRuns).toBeLessThanOrEqual(BUDGET);
  });
});
