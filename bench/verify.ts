/**
 * `npm run bench verify`: distinct states per second of the exhaustive search on one thread
 * and on two workers, next to the random exploration's machine observations per second, in
 * alternating slices (exploration, one thread, two workers, exploration, ...), and the bytes a
 * state costs (fingerprint set and the largest frontier).
 */
import fc from 'fast-check';
import { CLAIMS } from '../model/claims/index.js';
import { SCOPES } from '../model/verify/scope.js';
import { newStats, worldProperty } from '../model/world/property.js';
import { verifyOne, type VerifyRun } from '../src/verify/run.js';
import { medianRate, pairUp, pairsWanted, spread, type Slice } from './alternate.js';
import type { Bench } from './bench.js';

const fmt = (x: number): string => Math.round(x).toLocaleString('en-US');

/** States per search slice: the medium scope's first levels past this many states. */
const MAX_STATES = 150_000;

/** A slice of random exploration: machine observations in `ms`. */
function exploration(ms: number, seed: number): Slice {
  const stats = newStats();
  const t0 = performance.now();
  fc.check(worldProperty({ kind: 'mixed', stats }), {
    numRuns: Number.MAX_SAFE_INTEGER,
    interruptAfterTimeLimit: ms,
    markInterruptAsFailure: false,
    seed,
  });
  return { units: stats.observations, secs: (performance.now() - t0) / 1000 };
}

const searchSlice = (r: VerifyRun): Slice => ({ units: r.distinct, secs: r.elapsedMs / 1000 });

/** The exhaustive-search benchmark. */
export const verifyBench: Bench = {
  name: 'verify',
  summary:
    'distinct states/s of exhaustive search (1 thread, 2 workers) vs random exploration observations/s',
  async run(log) {
    log('warming up');
    verifyOne(SCOPES.small, 'honest', 'model');
    verifyOne(SCOPES.small, 'honest', 'model', { workers: 2 });
    const explore: Slice[] = [];
    const one: Slice[] = [];
    const two: Slice[] = [];
    let last: VerifyRun | undefined;
    const pairs = pairsWanted();
    for (let i = 0; i < pairs; i++) {
      explore.push(exploration(2_000, 1 + i));
      last = verifyOne(SCOPES.medium, 'honest', 'model', { maxStates: MAX_STATES, workers: 1 });
      one.push(searchSlice(last));
      const r2 = verifyOne(SCOPES.medium, 'honest', 'model', { maxStates: MAX_STATES, workers: 2 });
      two.push(searchSlice(r2));
      if (r2.distinct !== last.distinct) throw new Error('2 workers found other states than 1');
      log(
        `slice ${i + 1}/${pairs}: exploration ${fmt(explore[i]!.units / explore[i]!.secs)} obs/s, 1 thread ${fmt(one[i]!.units / one[i]!.secs)} states/s, 2 workers ${fmt(two[i]!.units / two[i]!.secs)} states/s`,
      );
    }
    const ratio = pairUp(explore, one, (obs, states) => states / obs);
    const workers = pairUp(one, two, (a, b) => b / a);
    const r = last!;
    return [
      `random exploration (mixed worlds, all claims): ${fmt(medianRate(explore))} machine observations/s (median slice)`,
      `exhaustive search (medium scope, honest, model client, first ${fmt(r.distinct)} distinct states, ${fmt(r.generated)} generated): 1 thread ${fmt(medianRate(one) * 60)} distinct states/min, 2 workers ${fmt(medianRate(two) * 60)} distinct states/min (median slices)`,
      `verify ratio (distinct states/s on 1 thread over observations/s): ${spread(ratio, 3)}; target >= 0.05: ${ratio.median >= 0.05 ? 'met' : 'not met'}`,
      `workers: 2 workers / 1 thread: ${spread(workers, 2, 'x')}; target >= 1.7x: ${workers.median >= 1.7 ? 'met' : 'not met'}`,
      `frontier: ${(r.bytes / r.distinct).toFixed(1)} bytes/state (fingerprint set and the largest level held as paths, ${fmt(r.peakFrontier)} states); target <= 200: ${r.bytes / r.distinct <= 200 ? 'met' : 'not met'}`,
      `limits: each distinct state is ended with the epilogue and judged by ${CLAIMS.length} claims; a state of the frontier is replayed from its path (about one move a state, paths share prefixes); the workers meet at every level and their successors pass through the coordinating thread`,
    ];
  },
};
