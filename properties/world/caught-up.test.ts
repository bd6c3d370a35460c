/**
 * The world and the caught-up proof (docs/spec.md#caught-up, issue 37): against a server that
 * states its head with its acknowledgment, NoFalseAlarm and Delivery hold WITHOUT
 * `proofWithinBudget`, with a proof budget far below the tool's silences (minutes of virtual
 * time). The same worlds with the head unstated fail the claim: the budget is then the tool's
 * business, and that is the false alarm of review I1. Two mutants, each killed: a server that
 * states a head it does not have, and a client that takes a head above its cursor for caught up.
 */
import { describe, expect, test } from 'vitest';
import { clientMachine } from '../../model/client-machine.js';
import { CLAIMS, claimNamed, type Claim } from '../../model/claims/index.js';
import { notApplicable } from '../../model/claims/types.js';
import { brokenConditions } from '../../model/world/validity.js';
import { never } from '../../model/mutants/constant-guards.js';
import { killMutant, mutantEntries } from '../../model/mutants/kill-table.js';
import { newStats } from '../../model/world/property.js';
import { checkWorlds, runs, runWorlds, SEED } from './helpers.js';

const NO_FALSE_ALARM = [claimNamed('NoFalseAlarm'), claimNamed('Delivery')];

/**
 * A claim judged without proofWithinBudget in worlds with at most one drop (the small scope of
 * `verify` bounds them the same way). What P must still bound after a stated head is the
 * delivery of events already owed (`c+1..H`): a chain of drops within one episode (each one an
 * idle timeout T to notice) can outlast any fixed P, and there the condition is needed, tool
 * or no tool (seed 1313078325: two silent drops and a restart while 3 events were owed).
 */
function withoutBudgetCondition(claim: Claim): Claim {
  return {
    ...claim,
    check(w) {
      if (w.truth.drops.length > 1)
        return notApplicable('more than one drop: P bounds the owed events over the episode');
      return claim.check(w, { broken: brokenConditions(w, 'proofWithinBudget') });
    },
  };
}

describe('caught-up worlds: a stated head makes the tool’s silence nobody’s failure', () => {
  test('NoFalseAlarm and Delivery hold without proofWithinBudget (at most one drop), P far below the silences', () => {
    const stats = newStats();
    checkWorlds({
      name: 'CaughtUpNoFalseAlarm',
      kind: 'caught-up',
      claims: NO_FALSE_ALARM.map(withoutBudgetCondition),
      numRuns: runs(1_000),
      stats,
    });
    console.log(`caught-up worlds: applied ${JSON.stringify(stats.applied)}`);
    expect(stats.applied['NoFalseAlarm'] ?? 0).toBeGreaterThanOrEqual(runs(1_000) * 0.3);
  });

  test('with every drop: NoFalseAlarm and Delivery hold under the conditions, whose proofWithinBudget no longer asks P to outlast the tool', () => {
    const stats = newStats();
    checkWorlds({
      name: 'CaughtUpConditions',
      kind: 'caught-up',
      claims: NO_FALSE_ALARM,
      numRuns: runs(1_000),
      stats,
    });
    console.log(`caught-up worlds, all conditions: applied ${JSON.stringify(stats.applied)}`);
    expect(stats.applied['NoFalseAlarm'] ?? 0).toBeGreaterThanOrEqual(runs(1_000) * 0.5);
  });

  test('the control: a client that does not read the head breaks NoFalseAlarm in the same worlds', () => {
    // The head is what makes the claim hold: read without it (the acknowledgment's floor alone,
    // the guard before issue 37), a silence past P after a cut fails a healthy call (review I1).
    const ignoresHead = clientMachine.provide({
      guards: { caughtUp: never, headBehindCursor: never },
    });
    const { details } = runWorlds({
      name: 'IgnoresHead',
      kind: 'caught-up',
      claims: NO_FALSE_ALARM.map(withoutBudgetCondition),
      subject: { machine: ignoresHead },
      numRuns: runs(1_000),
    });
    expect(details.failed, `seed ${SEED}`).toBe(true);
  });
});

describe('the two mutants of the stated head are killed', () => {
  const entries = mutantEntries();
  test.each([
    ['false-head', ['NoFalseAlarm', 'Delivery']],
    ['head-ahead-caught-up', ['NoSilentPartialResult']],
  ])('%s is killed', (name, claims) => {
    const entry = entries.find((e) => e.name === name)!;
    expect(entry, name).toBeDefined();
    const row = killMutant(entry, runs(3_000), SEED);
    console.log(`kill ${name}: ${row.claim ?? 'SURVIVED'} after ${row.runs} run(s); seed ${SEED}`);
    expect(row.claim, `${name} survived: ${row.why}`).not.toBeNull();
    expect(claims).toContain(row.claim);
  });

  test("the model's client is not killed by the probes that kill them", () => {
    for (const name of ['false-head', 'head-ahead-caught-up']) {
      const entry = entries.find((e) => e.name === name)!;
      const probe = entry.probes[0]!;
      const { machine: _m, ...rest } = probe.subject;
      void _m;
      const { details } = runWorlds({
        name: `model vs ${name}`,
        kind: probe.kind,
        // Against a server that lies, the model escalates (NoFalseAlarm is the server's kill);
        // what it must keep is safety: nothing unproven delivered, nothing silently partial.
        claims:
          entry.side === 'server'
            ? [claimNamed('NoUnprovenAcceptance')]
            : CLAIMS.filter((c) => c.name !== 'NoFalseAlarm' && c.name !== 'Delivery'),
        subject: rest,
        numRuns: runs(500),
      });
      expect(details.failed, `${name}: seed ${SEED}`).toBe(false);
    }
  });
});
