/**
 * `npm run bench verify`: distinct states per minute of the exhaustive search (single-threaded,
 * all four claims judged on every distinct state), next to the random exploration's machine
 * observations per second measured in the same run, and the bytes a state costs.
 */
import fc from 'fast-check';
import { SCOPES } from '../model/verify/scope.js';
import { newStats, worldProperty } from '../model/world/property.js';
import { verifyOne } from '../src/verify/run.js';
import type { Bench } from './index.js';

const fmt = (x: number): string => Math.round(x).toLocaleString('en-US');

/** The target of issue 9: distinct states per minute, single-threaded. */
const TARGET_PER_MINUTE = 1_000_000;

/** The exhaustive-search benchmark. */
export const verifyBench: Bench = {
  name: 'verify',
  summary: 'distinct states/min of exhaustive search vs random exploration observations/s',
  async run(log) {
    log('warming up');
    verifyOne(SCOPES.small, 'honest', 'model');
    log('random exploration (mixed worlds, all claims), 5 s');
    const stats = newStats();
    const t0 = performance.now();
    fc.check(worldProperty({ kind: 'mixed', stats }), {
      numRuns: Number.MAX_SAFE_INTEGER,
      interruptAfterTimeLimit: 5_000,
      markInterruptAsFailure: false,
      seed: 1,
    });
    const randomSecs = (performance.now() - t0) / 1000;
    log('exhaustive: the medium scope, honest server, model client (at most 400,000 states)');
    const r = verifyOne(SCOPES.medium, 'honest', 'model', { maxStates: 400_000 });
    const perMinute = (r.distinct / r.elapsedMs) * 60_000;
    const obsPerSec = stats.observations / randomSecs;
    return [
      `random exploration: ${fmt(stats.runs / randomSecs)} interleavings/s, ${fmt(obsPerSec)} machine observations/s`,
      `exhaustive search (medium scope, honest, model client, single thread): ${fmt(r.distinct)} distinct states, ${fmt(r.generated)} generated in ${(r.elapsedMs / 1000).toFixed(1)} s: ${fmt(perMinute)} distinct states/min, ${fmt((r.generated / r.elapsedMs) * 60_000)} generated/min`,
      `ratio: ${(perMinute / 60 / obsPerSec).toFixed(3)} distinct states per random observation-time (distinct states/s over observations/s)`,
      `memory: ${(r.bytes / r.distinct).toFixed(1)} bytes/state in the fingerprint set and parent pointers; largest level ${fmt(r.peakFrontier)} states held as snapshots`,
      `target: ${fmt(TARGET_PER_MINUTE)} distinct states/min single-threaded: ${perMinute >= TARGET_PER_MINUTE ? 'met' : 'not met'} in this run (no worker threads)`,
      'limits: each distinct state is ended with the epilogue and judged by four claims (about half the time), then world snapshots are copied per move; the frontier is held in memory',
    ];
  },
};
