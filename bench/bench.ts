/**
 * What a benchmark is. Each measures its subject and a baseline in the same run and reports the
 * ratio: these machines are noisy, so absolute numbers alone mean little. The benchmarks import
 * this file, and the registry (bench/index.ts) imports them: none imports the registry back.
 */

/** One benchmark: returns the lines it reports. */
export interface Bench {
  name: string;
  /** What it measures, in one line. */
  summary: string;
  run(log: (line: string) => void): Promise<string[]>;
}

/** Bad input on the command line: `npm run bench` prints its one-line message and exits 2. */
export class BenchUsageError extends Error {}
