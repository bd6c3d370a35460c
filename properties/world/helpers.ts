/**
 * Shared by the world suites: run counts scaled by MCPR_RUNS_SCALE, a seed from MCPR_SEED (or
 * fresh), and a check that prints its seed and replay command, and on failure the whole
 * counterexample (timeline, claim, replay command).
 */
import fc from 'fast-check';
import type { Claim } from '../../model/claims/index.js';
import type { WorldKind } from '../../model/world/arbitraries.js';
import {
  counterexampleOf,
  formatCounterexample,
  replayCommand,
} from '../../model/world/counterexample.js';
import { worldProperty, type ExploreStats, type Subject } from '../../model/world/property.js';
import type { ConditionName } from '../../model/world/validity.js';
import { SEED } from '../support/seed.js';

/** `n` scaled by MCPR_RUNS_SCALE (default 1) for long campaigns. */
export function runs(n: number): number {
  const scale = Number(process.env.MCPR_RUNS_SCALE ?? '1');
  return Math.max(1, Math.round(n * (Number.isFinite(scale) && scale > 0 ? scale : 1)));
}

/** The seed of this test process: MCPR_SEED, or a fresh one (shared with every suite). */
export { SEED };

/** What {@link checkWorlds} checks. */
export interface WorldCheck {
  name: string;
  kind: WorldKind;
  claims: readonly Claim[];
  subject?: Subject;
  subjectName?: string;
  ignore?: ConditionName;
  numRuns: number;
  stats?: ExploreStats;
}

/** Runs a world property; returns fast-check's details and the counterexample, if any. */
export function runWorlds(c: WorldCheck) {
  const details = fc.check(
    worldProperty({
      kind: c.kind,
      claims: c.claims,
      ...(c.subject ? { subject: c.subject } : {}),
      ...(c.ignore ? { ignore: c.ignore } : {}),
      ...(c.stats ? { stats: c.stats } : {}),
    }),
    { numRuns: c.numRuns, seed: SEED },
  );
  const cx = counterexampleOf(details, {
    kind: c.kind,
    ...(c.subject ? { subject: c.subject } : {}),
    ...(c.subjectName !== undefined ? { subjectName: c.subjectName } : {}),
    ...(c.ignore ? { ignore: c.ignore } : {}),
  });
  return { details, cx };
}

/** Asserts that every claim holds; prints the seed always and the counterexample on failure. */
export function checkWorlds(c: WorldCheck): void {
  const { details, cx } = runWorlds(c);
  console.log(
    `${c.name}: seed ${SEED}, ${details.numRuns} worlds (${c.kind}); replay: MCPR_SEED=${SEED} npx vitest run properties/world`,
  );
  if (!details.failed) return;
  const text = cx
    ? formatCounterexample(cx)
    : `${String(details.errorInstance)}\nreplay: seed ${details.seed} path ${details.counterexamplePath}`;
  throw new Error(`${c.name} broke\n${text}`, { cause: details.errorInstance });
}

export { replayCommand };
