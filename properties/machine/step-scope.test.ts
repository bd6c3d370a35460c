/**
 * `step` (model/run.ts) reuses one inert actor scope per machine instead of the new actor
 * that xstate's `transition()` makes on every call. Over random observation sequences, the
 * two give the same snapshot (state and context) at every step, for the model's machine and
 * every machine mutant, so the exploration, the search and the oracle see the same machine.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { clientMachine } from '../../model/client-machine.js';
import { MACHINE_MUTANTS } from '../../model/mutants/machine-mutants.js';
import { initialSnapshot, step, stepByTransition } from '../../model/run.js';
import { announceSeed, runs } from '../support/seed.js';
import { observation } from './differential.js';

const seed = announceSeed('properties/machine/step-scope.test.ts');
const MACHINES = [{ name: 'model', machine: clientMachine }, ...MACHINE_MUTANTS];

describe('step with a reused inert scope is xstate transition()', () => {
  test.each(MACHINES.map((m) => [m.name, m] as const))('%s', (_name, { machine }) => {
    fc.assert(
      fc.property(fc.array(observation, { maxLength: 40 }), (obs) => {
        let a = initialSnapshot(machine);
        let b = a;
        for (const o of obs) {
          a = step(a, o, machine);
          b = stepByTransition(b, o, machine);
          expect(a.value).toEqual(b.value);
          expect(a.context).toEqual(b.context);
          expect(a.status).toBe(b.status);
        }
      }),
      { seed, numRuns: runs(200) },
    );
  });
});
