/**
 * Jumping over runs of identical quiet polls (model/world/quiet-polls.ts) changes nothing but
 * the speed: a world run with the skip ends in the same state, field by field (client, server,
 * network, ground truth, clock, observation count), as the same world stepped poll by poll, so
 * every claim and every condition of validity gives the same verdict. Worlds of the polling
 * kinds are where the runs are long; the mixed worlds are what the exploration runs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clientMachine } from '../../model/client-machine.js';
import { commandsArb, configArb, type WorldKind } from '../../model/world/arbitraries.js';
import type { WorldCommand } from '../../model/world/commands.js';
import { DEFAULT_CONFIG, type WorldConfig } from '../../model/world/config.js';
import { BASE_CONFIG } from '../../model/verify/scope.js';
import { stepCache } from '../../model/world/machine-cache.js';
import { runWorld, toWorldCommands } from '../../model/world/property.js';
import { announceSeed, runs, SEED } from '../support/seed.js';
import { stateOf, verdicts } from './world-state.js';

announceSeed('properties/world/quiet-polls.property.test.ts');

const cache = stepCache(clientMachine);

/** The world run both ways, with the machine steps each took. */
function both(cfg: WorldConfig, commands: readonly WorldCommand[]) {
  const s0 = cache.stats.hits + cache.stats.misses;
  const skipped = runWorld(cfg, commands);
  const s1 = cache.stats.hits + cache.stats.misses;
  const stepped = runWorld(cfg, commands, {}, { stepEveryPoll: true });
  const s2 = cache.stats.hits + cache.stats.misses;
  return { skipped, stepped, fewerSteps: s1 - s0 < s2 - s1 };
}

describe('quiet polls', () => {
  it('a long quiet polling run is jumped over, with the same end state and verdicts', () => {
    // A polling server (Q) without acknowledgment: after the drop the client polls every
    // R + Q ms with nothing new, for 200 s, then the tool goes on.
    const cfg: WorldConfig = { ...DEFAULT_CONFIG, Q: 5_000, ack: false, P: 600_000, N: 3 };
    const commands: WorldCommand[] = [
      { kind: 'Emit', stream: 'tool' },
      { kind: 'Disconnect', silent: false },
      { kind: 'Advance', ms: 200_000 },
      { kind: 'Emit', stream: 'tool' },
    ];
    const { skipped, stepped, fewerSteps } = both(cfg, commands);
    expect(stepped.truth.reconnects.length).toBeGreaterThan(20);
    expect(fewerSteps).toBe(true);
    expect(stateOf(skipped)).toEqual(stateOf(stepped));
    expect(verdicts(skipped)).toEqual(verdicts(stepped));
  });

  it('a poll every 100 ms through a 30-minute proof budget runs to the budget both ways', () => {
    // Seed 1096221848's world, shrunk: the epilogue polls every R = 100 ms for P = 1,800 s. An
    // advance then gave up after 10,000 timer firings and jumped to its end, so the world
    // stepped poll by poll stopped polling at 10,000 reconnects and went on past its proof
    // budget, while the world with the skip (a jump is one firing) polled to the budget.
    // The verify scopes' base configuration (D unbounded, B 1, N 2, priming open, ...).
    const cfg: WorldConfig = {
      ...BASE_CONFIG,
      T: 76_000,
      R: 100,
      P: 1_800_000,
      Q: 30_000,
      ack: false,
    };
    const commands: WorldCommand[] = [
      { kind: 'Restart' },
      { kind: 'Emit', stream: 'tool' },
      { kind: 'Evict' },
    ];
    const { skipped, stepped, fewerSteps } = both(cfg, commands);
    expect(fewerSteps).toBe(true);
    expect(stepped.truth.reconnects.length).toBeGreaterThan(10_001);
    expect(stateOf(skipped)).toEqual(stateOf(stepped));
    expect(verdicts(skipped)).toEqual(verdicts(stepped));
  });

  const kinds: WorldKind[] = ['polling', 'break:proofWithinBudget', 'mixed', 'any'];
  for (const kind of kinds) {
    it(`${kind} worlds end in the same state and verdicts with and without the skip`, () => {
      let jumped = 0;
      fc.assert(
        fc.property(configArb(kind), commandsArb(kind), (cfg, cmds) => {
          const { skipped, stepped, fewerSteps } = both(cfg, toWorldCommands(cmds));
          if (fewerSteps) jumped++;
          expect(stateOf(skipped)).toEqual(stateOf(stepped));
          expect(verdicts(skipped)).toEqual(verdicts(stepped));
        }),
        { seed: SEED, numRuns: runs(kind === 'polling' ? 400 : 200) },
      );
      // Not vacuous: some worlds of the polling kind had a run to jump over.
      if (kind === 'polling') expect(jumped).toBeGreaterThan(0);
    }, 120_000);
  }
});
