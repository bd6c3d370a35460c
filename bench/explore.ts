/**
 * `npm run bench explore`: throughput of the world exploration with the real client machine in
 * the loop, next to a trivial fast-check `modelRun` measured in the same run. The ratio is the
 * figure; the breakdown says where the time goes (generation, world, machine).
 */
import fc from 'fast-check';
import { CLAIMS } from '../model/claims/index.js';
import { clientMachine } from '../model/client-machine.js';
import { commandsArb, configArb, MAX_COMMANDS } from '../model/world/arbitraries.js';
import { stepCache } from '../model/world/machine-cache.js';
import { newStats, runWorld, toWorldCommands, worldProperty } from '../model/world/property.js';
import { alternate, medianRate, pairsWanted, spread, type Slice } from './alternate.js';
import type { Bench } from './bench.js';

class Inc implements fc.Command<{ n: number }, { n: number }> {
  check(): boolean {
    return true;
  }
  run(m: { n: number }, r: { n: number }): void {
    m.n++;
    r.n++;
  }
  toString(): string {
    return 'Inc';
  }
}

class Dec extends Inc {
  override run(m: { n: number }, r: { n: number }): void {
    m.n--;
    r.n--;
  }
  override toString(): string {
    return 'Dec';
  }
}

/** A trivial modelRun of the same sequence lengths: the baseline. */
function baseline(ms: number): { runs: number; steps: number; secs: number } {
  let steps = 0;
  let runs = 0;
  const t0 = performance.now();
  fc.check(
    fc.property(
      fc.commands([fc.constant(new Inc()), fc.constant(new Dec())], {
        maxCommands: MAX_COMMANDS,
        size: 'max',
      }),
      (cmds) => {
        const real = { n: 0 };
        fc.modelRun(() => ({ model: { n: 0 }, real }), cmds);
        steps += Math.abs(real.n) >= 0 ? [...cmds].length : 0;
        runs++;
      },
    ),
    {
      numRuns: Number.MAX_SAFE_INTEGER,
      interruptAfterTimeLimit: ms,
      markInterruptAsFailure: false,
      seed: 1,
    },
  );
  return { runs, steps, secs: (performance.now() - t0) / 1000 };
}

/** Generation only: the world's arbitraries, with a property that does nothing. */
function generationOnly(ms: number): { runs: number; secs: number } {
  let runs = 0;
  const t0 = performance.now();
  fc.check(
    fc.property(configArb('mixed'), commandsArb('mixed'), (_c, cmds) => {
      for (const _x of cmds) void _x;
      runs++;
    }),
    {
      numRuns: Number.MAX_SAFE_INTEGER,
      interruptAfterTimeLimit: ms,
      markInterruptAsFailure: false,
      seed: 1,
    },
  );
  return { runs, secs: (performance.now() - t0) / 1000 };
}

const rate = (x: number, secs: number): string =>
  Math.round(x / Math.max(secs, 1e-3)).toLocaleString('en-US');

/** One slice of the exploration: mixed worlds, real machine, every claim. */
function exploration(ms: number, seed: number, stats = newStats()): Slice {
  const t0 = performance.now();
  const runs0 = stats.runs;
  fc.check(worldProperty({ kind: 'mixed', stats }), {
    numRuns: Number.MAX_SAFE_INTEGER,
    interruptAfterTimeLimit: ms,
    markInterruptAsFailure: false,
    seed,
  });
  return { units: stats.runs - runs0, secs: (performance.now() - t0) / 1000 };
}

/** The exploration benchmark. */
export const exploreBench: Bench = {
  name: 'explore',
  summary: 'interleavings/s and steps/s of the world exploration vs a trivial fast-check modelRun',
  async run(log) {
    const ms = 1_500;
    log('warming up');
    fc.check(worldProperty({ kind: 'mixed' }), { numRuns: 2_000, seed: 2 });
    const stats = newStats();
    const cache = stepCache(clientMachine);
    const before = { ...cache.stats };
    const baseSteps: number[] = [];
    log(
      'alternating slices: trivial modelRun, exploration (mixed worlds, real machine, all claims)',
    );
    const alt = await alternate(
      pairsWanted(),
      () => {
        const b = baseline(ms);
        baseSteps.push(b.steps);
        return { units: b.runs, secs: b.secs };
      },
      (i) => exploration(ms, 1 + i, stats),
      (baseRate, exploreRate) => baseRate / exploreRate,
      log,
    );
    const secs = alt.subject.reduce((a, x) => a + x.secs, 0);
    const baseSecs = alt.baseline.reduce((a, x) => a + x.secs, 0);
    const baseRuns = alt.baseline.reduce((a, x) => a + x.units, 0);
    const baseStepCount = baseSteps.reduce((a, x) => a + x, 0);
    const hits = cache.stats.hits - before.hits;
    const misses = cache.stats.misses - before.misses;
    log('generation only');
    const gen = generationOnly(ms);
    log('world only (pre-generated sequences, no fast-check)');
    const samples = fc.sample(fc.tuple(configArb('mixed'), commandsArb('mixed')), {
      numRuns: 2_000,
      seed: 3,
    });
    const worlds = samples.map(([cfg, cmds]) => [cfg, toWorldCommands(cmds)] as const);
    const w0 = performance.now();
    let worldRuns = 0;
    while (performance.now() - w0 < ms) {
      for (const [cfg, cmds] of worlds) runWorld(cfg, cmds);
      worldRuns += worlds.length;
    }
    const worldSecs = (performance.now() - w0) / 1000;
    const avg = stats.steps / Math.max(1, stats.runs);
    return [
      `baseline (trivial fc.modelRun, size 'max', maxCommands ${MAX_COMMANDS}): ${rate(medianRate(alt.baseline), 1)} runs/s (median slice), ${rate(baseStepCount, baseSecs)} commands/s (avg ${(baseStepCount / baseRuns).toFixed(1)})`,
      `exploration (mixed worlds, real machine, ${CLAIMS.length} claims): ${rate(medianRate(alt.subject), 1)} interleavings/s (median slice), ${rate(stats.steps, secs)} steps/s, avg length ${avg.toFixed(1)} steps, ${rate(stats.observations, secs)} machine observations/s`,
      `exploration ratio baseline/exploration: ${spread(alt, 1, 'x')}; target <= 5x: ${alt.median <= 5 ? 'met' : 'not met'}`,
      `breakdown: fast-check generation alone ${rate(gen.runs, gen.secs)} runs/s; worlds alone (no fast-check) ${rate(worldRuns, worldSecs)} runs/s`,
      `machine: transition() memo hit rate ${((100 * hits) / Math.max(1, hits + misses)).toFixed(2)}% (${misses} misses at ~20 µs each); target > 99%: ${hits / Math.max(1, hits + misses) > 0.99 ? 'met' : 'not met'}`,
      'limits: fast-check generation and shrink bookkeeping (see the breakdown), the world itself (frames, timers, writer, claims) and garbage collection; the memo misses are almost all in priming=all worlds, where every reconnect primes a new id and so a cursor the memo has not seen (docs/world.md, "Speed")',
    ];
  },
};
