/** The machine against the seed's reference function, on generated reconnects. */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { announceSeed, runs } from '../support/seed.js';
import { deviationProperty, lockstepDifferential, resultDifferential } from './differential.js';

const seed = announceSeed('properties/machine/differential.test.ts');

describe('machine vs reference function', () => {
  it('agree on every generated ReconnectResult outside the documented deviation', () => {
    fc.assert(resultDifferential(), { seed, numRuns: runs(5000) });
  });

  it('deviation: a declared floor covering the cursor makes an empty stream delayed (the seed fails it)', () => {
    fc.assert(deviationProperty(), { seed, numRuns: runs(1000) });
  });

  it('agree after every observation of generated observation sequences', () => {
    fc.assert(lockstepDifferential(), { seed, numRuns: runs(3000) });
  });
});
