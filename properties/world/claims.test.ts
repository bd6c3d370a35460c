/**
 * Each claim as a named fast-check property over generated worlds, with the model's client.
 * NoUnprovenAcceptance and NoSilentPartialResult hold against every server, faulty ones
 * included; NoFalseAlarm and Delivery hold whenever the conditions of validity do.
 * Together: at least 10,000 interleavings per `npm test` (MCPR_RUNS_SCALE scales them).
 */
import { afterAll, describe, expect, test } from 'vitest';
import { claimNamed } from '../../model/claims/index.js';
import { MACHINE_MUTANTS } from '../../model/mutants/machine-mutants.js';
import { newStats } from '../../model/world/property.js';
import { checkWorlds, runs } from './helpers.js';

const stats = newStats();

describe('claims of the model client', () => {
  const CASES = [
    {
      claim: 'NoUnprovenAcceptance',
      kind: 'any',
      text: 'only the proven prefix 1..cursor is ever delivered, any server',
      minApplied: 0,
    },
    {
      claim: 'NoSilentPartialResult',
      kind: 'any',
      text: 'complete means all delivered, otherwise an error, any server',
      minApplied: 0,
    },
    {
      claim: 'NoFalseAlarm',
      kind: 'valid',
      text: 'under the conditions of validity the client never escalates',
      // Since rule 7.1 bounds delayed, a tool silence past P breaks proofWithinBudget with an
      // acknowledging server too: about 87% of valid worlds hold every condition (2560 to 2680
      // of 3000 over 60 seeds, mean 2618, sd 20). 0.85 (2550) was 3.4 sd below the mean; 0.8
      // (2400) is 11 sd below it, and still fails worlds where the claim mostly does not apply.
      minApplied: 0.8,
    },
    {
      claim: 'Delivery',
      kind: 'valid',
      text: 'under the conditions of validity every event arrives exactly once',
      minApplied: 0.4,
    },
  ] as const;

  for (const c of CASES) {
    test(`${c.claim}: ${c.text}`, () => {
      const before = stats.applied[c.claim] ?? 0;
      checkWorlds({
        name: c.claim,
        kind: c.kind,
        claims: [claimNamed(c.claim)],
        numRuns: runs(3_000),
        stats,
      });
      const applied = (stats.applied[c.claim] ?? 0) - before;
      expect(applied).toBeGreaterThanOrEqual(runs(3_000) * c.minApplied);
    });
  }

  test('against a polling server without acknowledgment: no false alarm, every event delivered, and the client does poll', () => {
    const polling = newStats();
    checkWorlds({
      name: 'PollingServer',
      kind: 'polling',
      claims: [claimNamed('NoFalseAlarm'), claimNamed('Delivery')],
      numRuns: runs(1_000),
      stats: polling,
    });
    // The claims must have applied (a drop while unproven breaks proofWithinBudget often in
    // these worlds: about a third hold every condition), and the client must really have polled.
    console.log(
      `polling worlds: applied ${JSON.stringify(polling.applied)}, ${JSON.stringify(polling.features)}`,
    );
    expect(polling.applied['NoFalseAlarm'] ?? 0).toBeGreaterThanOrEqual(runs(1_000) * 0.2);
    expect(polling.features['client polled'] ?? 0).toBeGreaterThanOrEqual(runs(1_000) * 0.05);
  });

  test('an honest server that rejects unreplayable cursors keeps even a trusting client safe', () => {
    const trusting = MACHINE_MUTANTS.find((m) => m.name === 'accept-any-200')!.machine;
    checkWorlds({
      name: 'HonestServerMakesTrustSafe',
      kind: 'promise',
      claims: [claimNamed('NoUnprovenAcceptance'), claimNamed('NoSilentPartialResult')],
      subject: { machine: trusting },
      numRuns: runs(1_000),
      stats,
    });
  });

  afterAll(() => {
    console.log(
      `world claims: ${stats.runs} interleavings, ${stats.steps} steps, applied ${JSON.stringify(stats.applied)}`,
    );
  });

  test('at least 10,000 interleavings were checked', () => {
    expect(stats.runs).toBeGreaterThanOrEqual(Math.min(10_000, runs(10_000)));
  });
});
