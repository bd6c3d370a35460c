/**
 * EachConditionIsNecessary: for each of the seed's conditions of validity, worlds that break
 * only that condition make fast-check find, and shrink, a counterexample to NoFalseAlarm or
 * Delivery. The test asserts that it is found, that it was shrunk, and that in the shrunk world
 * exactly that condition (and no other) is broken. MCPR_VERBOSE=1 prints each counterexample.
 */
import { describe, expect, test } from 'vitest';
import { claimNamed } from '../../model/claims/index.js';
import { formatCounterexample } from '../../model/world/counterexample.js';
import { runWorld } from '../../model/world/property.js';
import { brokenConditions, CONDITIONS } from '../../model/world/validity.js';
import { runs, runWorlds, SEED } from './helpers.js';

describe('EachConditionIsNecessary', () => {
  for (const { name, text } of CONDITIONS) {
    test(`${name}: ${text}`, () => {
      const { details, cx } = runWorlds({
        name,
        kind: `break:${name}`,
        claims: [claimNamed('NoFalseAlarm'), claimNamed('Delivery')],
        ignore: name,
        numRuns: runs(2_000),
      });
      console.log(
        `EachConditionIsNecessary/${name}: seed ${SEED}, counterexample after ${details.numRuns} run(s), ${details.numShrinks} shrink(s)`,
      );
      expect(details.failed, `no counterexample found breaking only ${name}`).toBe(true);
      expect(cx).not.toBeNull();
      const text = formatCounterexample(cx!);
      expect(text).toContain(`replay: npx mcp-resumption explore --seed ${SEED} --path `);
      if (process.env.MCPR_VERBOSE) console.log(text);
      expect(cx!.commands.length).toBeLessThanOrEqual(12);
      const w = runWorld(cx!.cfg, cx!.commands);
      expect(brokenConditions(w)).toEqual([name]);
    });
  }
});
