/**
 * A recorded world is the world that was explored: recording a timeline (for a counterexample,
 * a replay, the playground) steps every keepalive and every poll so that the timeline shows
 * them, where the exploration jumps over quiet runs of them; the world ends in the same state,
 * field by field, with every claim's and condition's verdict the same. Otherwise a printed
 * counterexample could show what the explored world did not do.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { commandsArb, configArb, type WorldKind } from '../../model/world/arbitraries.js';
import type { WorldCommand } from '../../model/world/commands.js';
import { DEFAULT_CONFIG, type WorldConfig } from '../../model/world/config.js';
import { runWorld, toWorldCommands } from '../../model/world/property.js';
import { FIRING_LIMIT } from '../../model/world/world.js';
import { announceSeed, runs, SEED } from '../support/seed.js';
import { stateOf, verdicts } from './world-state.js';

announceSeed('properties/world/recorded-world.property.test.ts');

describe('recorded worlds', () => {
  it('a long run of quiet keepalives ends the same recorded (15,000 ticks, not cut at 10,000)', () => {
    // Keepalives every 100 ms for 1,500 s: an advance used to give up after 10,000 timer
    // firings, so the recorded world (one firing per tick) lost the last 5,000 ticks that the
    // explored world (one jump) kept.
    const cfg: WorldConfig = { ...DEFAULT_CONFIG, K: 100, T: 1_000, P: 1_800_000, N: 2 };
    const commands: WorldCommand[] = [
      { kind: 'Emit', stream: 'tool' },
      { kind: 'Advance', ms: 1_500_000 },
      { kind: 'Emit', stream: 'tool' },
    ];
    const explored = runWorld(cfg, commands);
    const recorded = runWorld(cfg, commands, {}, { record: true });
    expect(recorded.timeline!.length).toBeGreaterThan(15_000);
    expect(explored.client.observations).toBeGreaterThan(15_000);
    expect(stateOf(recorded)).toEqual(stateOf(explored));
    expect(verdicts(recorded)).toEqual(verdicts(explored));
  });

  it('a world past the firing limit is an error that says so, not a world cut short', () => {
    // Keepalives every 1 ms blocked behind a saturated application (none can be jumped) for
    // 300 s: more timers than an advance runs. Generated worlds stay far below the limit.
    const cfg: WorldConfig = {
      ...DEFAULT_CONFIG,
      K: 1,
      T: 10_000_000,
      B: 1,
      read: 'coupled',
      P: 10_000_000,
    };
    const commands: WorldCommand[] = [
      { kind: 'SaturateApp' },
      { kind: 'Emit', stream: 'tool' },
      { kind: 'Emit', stream: 'tool' },
      { kind: 'Advance', ms: FIRING_LIMIT + 100_000 },
    ];
    expect(() => runWorld(cfg, commands)).toThrow(
      `the world fired more than 200,000 timers in one advance of 300000 ms (K=1, R=1000, P=10000000): choose a larger K or R, a shorter P, or a shorter Advance`,
    );
  });

  const kinds: WorldKind[] = ['mixed', 'polling', 'any'];
  for (const kind of kinds) {
    it(`${kind} worlds end in the same state and verdicts recorded and explored`, () => {
      fc.assert(
        fc.property(configArb(kind), commandsArb(kind), (cfg, cmds) => {
          const commands = toWorldCommands(cmds);
          const explored = runWorld(cfg, commands);
          const recorded = runWorld(cfg, commands, {}, { record: true });
          expect(stateOf(recorded)).toEqual(stateOf(explored));
          expect(verdicts(recorded)).toEqual(verdicts(explored));
        }),
        { seed: SEED, numRuns: runs(150) },
      );
    }, 120_000);
  }
});
