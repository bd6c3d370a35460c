/**
 * Seeds for randomized suites. Every run prints its seed and the command that replays it;
 * `MCPR_SEED` fixes the seed, `MCPR_RUNS_SCALE` multiplies run counts for long campaigns.
 */

/** The seed for this process: `MCPR_SEED` or a fresh one. */
export const SEED: number = seedFromEnv(process.env.MCPR_SEED);

function seedFromEnv(value: string | undefined): number {
  if (value === undefined || value === '') return (Date.now() ^ (process.pid << 8)) >>> 0;
  const seed = Number(value);
  if (!Number.isSafeInteger(seed)) throw new Error(`MCPR_SEED must be an integer, got "${value}"`);
  return seed;
}

const SCALE = process.env.MCPR_RUNS_SCALE ? Math.max(1, Number(process.env.MCPR_RUNS_SCALE)) : 1;

/** `n` runs, scaled by `MCPR_RUNS_SCALE`. */
export function runs(n: number): number {
  return Math.round(n * SCALE);
}

/** Prints the seed and the replay command for a suite (once per file). */
export function announceSeed(file: string): number {
  console.log(`[seed] ${file}: seed=${SEED} (replay: MCPR_SEED=${SEED} npx vitest run ${file})`);
  return SEED;
}
