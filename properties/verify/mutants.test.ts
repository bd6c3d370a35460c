/**
 * Every mutant of the zoo is killed by exhaustive search of the small scope, by a claim its
 * probes check, with a counterexample no longer than the one random search (the kill table,
 * seed 1, 3,000 runs a probe) shrank to; the counterexample replays to the same broken claim.
 */
import { describe, expect, test } from 'vitest';
import { claimNamed } from '../../model/claims/index.js';
import type { ClaimName } from '../../model/claims/types.js';
import { killMutant, mutantEntries } from '../../model/mutants/kill-table.js';
import { SCOPES } from '../../model/verify/scope.js';
import { runWorld } from '../../model/world/property.js';
import { exhaustiveKill } from '../../src/verify/mutants.js';

describe('the mutant zoo under exhaustive search (small scope)', () => {
  for (const entry of mutantEntries()) {
    test(`${entry.side} mutant ${entry.name} is killed, no longer than random search's`, () => {
      const kill = exhaustiveKill(entry, SCOPES.small);
      const cx = kill.counterexample;
      expect(cx, `${entry.name} survived ${kill.states} states`).not.toBeNull();
      const probeClaims = new Set(entry.probes.flatMap((p) => p.claims.map((c) => c.name)));
      expect(probeClaims.has(cx!.claim as ClaimName)).toBe(true);
      const w = runWorld(cx!.cfg, cx!.commands, cx!.subject);
      expect(claimNamed(cx!.claim as ClaimName).check(w).ok).toBe(false);
      const random = killMutant(entry, 3_000, 1);
      console.log(
        `exhaustive kill ${entry.name}: ${cx!.claim}, ${cx!.commands.length} command(s) after ${kill.states} states; random: ${random.shrunkLength ?? '-'}`,
      );
      if (random.shrunkLength !== null)
        expect(cx!.commands.length).toBeLessThanOrEqual(random.shrunkLength);
    });
  }
});
