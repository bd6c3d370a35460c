/**
 * The registry of benchmarks run by `npm run bench`. Each benchmark measures its subject and a
 * baseline in the same run and reports the ratio: these machines are noisy, so absolute
 * numbers alone mean little.
 */
import { checkBench } from './check.js';
import { clientCpuBench } from './client-cpu.js';
import { exploreBench } from './explore.js';
import { falseAlarmsBench } from './false-alarms.js';
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
BENCHES.push(clientCpuBench);
BENCHES.push(falseAlarmsBench);
// Redis before verify: verify leaves a large heap behind, whose collection the store's side
// (more objects per event than raw XADD) would pay for in the same process.
BENCHES.push(redisBench);
BENCHES.push(verifyBench);
