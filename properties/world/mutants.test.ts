/**
 * The mutant zoo: every client and server mutant is killed by a named claim within a bounded
 * number of runs.
 */
import { describe, expect, test } from 'vitest';
import { CLAIMS, claimNamed } from '../../model/claims/index.js';
import { MACHINE_MUTANTS } from '../../model/mutants/machine-mutants.js';
import { killMutant, mutantEntries, type MutantEntry } from '../../model/mutants/kill-table.js';
import { runs, SEED } from './helpers.js';

/** Runs per probe a kill must happen within. */
const BOUND = runs(3_000);

/** The claim expected to kill each mutant (the first one of its probes that can). */
const EXPECTED: Record<string, string[]> = {
  'trusts-any-200': ['NoUnprovenAcceptance', 'NoSilentPartialResult'],
  'ignores-floor': ['NoFalseAlarm'],
  'off-by-one-floor': ['NoSilentPartialResult', 'NoUnprovenAcceptance'],
  'unproven-forever': ['NoSilentPartialResult'],
  'idle-on-app-thread': ['NoFalseAlarm'],
  'drops-cursor': ['NoUnprovenAcceptance', 'NoFalseAlarm', 'NoSilentPartialResult'],
  'fails-empty-poll': ['NoFalseAlarm'],
  'delayed-forever': ['NoSilentPartialResult'],
  'accepts-no-cursor': ['NoUnprovenAcceptance', 'NoSilentPartialResult'],
  'waits-for-request-timeout': ['NoWaitAfterFailure'],
  'head-ahead-caught-up': ['NoSilentPartialResult'],
  'false-head': ['NoFalseAlarm', 'Delivery'],
  'head-no-replay': ['NoFalseAlarm', 'Delivery'],
  head: ['NoFalseAlarm'],
  'durable-restart-404': ['NoFalseAlarm'],
  'restart-empty-200': ['NoFalseAlarm'],
  'partial-from-floor': ['NoUnprovenAcceptance', 'NoSilentPartialResult'],
  'reorder-same-tick': ['NoFalseAlarm'],
  'other-stream': ['NoFalseAlarm'],
  'evicted-as-known': ['NoUnprovenAcceptance', 'NoSilentPartialResult'],
};

describe('mutant zoo', () => {
  for (const entry of mutantEntries()) {
    test(`${entry.side} mutant ${entry.name} is killed (${entry.description})`, () => {
      const row = killMutant(entry, BOUND, SEED);
      console.log(
        `kill ${entry.name}: ${row.claim ?? 'SURVIVED'} after ${row.runs} run(s), shrunk to ${row.shrunkLength} command(s); seed ${SEED}`,
      );
      expect(row.claim, `${entry.name} survived ${row.runs} runs`).not.toBeNull();
      expect(EXPECTED[entry.name]).toContain(row.claim);
      expect(row.runs).toBeLessThanOrEqual(BOUND * entry.probes.length);
    });
  }
});

describe('controls: the same search does not kill the model or the honest servers', () => {
  const trusting = MACHINE_MUTANTS.find((m) => m.name === 'accept-any-200')!.machine;
  const controls: MutantEntry[] = [
    {
      name: "the model's client",
      side: 'client',
      description: 'no mutation',
      probes: [
        { kind: 'mixed', claims: CLAIMS, subject: {} },
        { kind: 'polling', claims: CLAIMS, subject: {} },
      ],
    },
    ...(['honest', 'honest-reject'] as const).map((policy): MutantEntry => ({
      name: `${policy} server`,
      side: 'server',
      description: 'no mutation',
      probes: [
        {
          kind: 'valid',
          claims: [claimNamed('NoFalseAlarm'), claimNamed('Delivery')],
          subject: { policy },
        },
        ...(policy === 'honest-reject'
          ? [
              {
                kind: 'promise' as const,
                claims: [claimNamed('NoUnprovenAcceptance'), claimNamed('NoSilentPartialResult')],
                subject: { policy, machine: trusting },
              },
            ]
          : []),
      ],
    })),
  ];
  for (const entry of controls) {
    test(`${entry.name} survives`, () => {
      const row = killMutant(entry, runs(1_000), SEED);
      expect(row.claim, `${entry.name} was killed: ${row.why}`).toBeNull();
    });
  }
});
