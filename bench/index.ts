/**
 * The registry of benchmarks run by `npm run bench`. Each benchmark measures its subject and a
 * baseline in the same run and reports the ratio: these machines are noisy, so absolute
 * numbers alone mean little.
 */
import { checkBench } from './check.js';
import { exploreBench } from './explore.js';
import { guardBench } from './guard.js';
import { redisBench } from './redis.js';
import { verifyBench } from './verify.js';
import type { Bench } from './bench.js';

export type { Bench } from './bench.js';

/** Every benchmark, in the order they run. */
export const BENCHES: Bench[] = [];

BENCHES.push(checkBench);
BENCHES.push(exploreBench);
BENCHES.push(guardBench);
// Redis before verify: verify leaves a large heap behind, whose collection the store's side
// (more objects per event than raw XADD) would pay for in the same process.
BENCHES.push(redisBench);
BENCHES.push(verifyBench);
