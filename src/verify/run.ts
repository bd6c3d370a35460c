/**
 * One verification: a scope, a server policy and a client, searched exhaustively with every
 * claim; the counts TLC prints, each claim proven within the scope or broken with its shortest
 * counterexample.
 */
import { CLAIMS } from '../../model/claims/index.js';
import { scopeConfigs, type Scope } from '../../model/verify/scope.js';
import type { A2aEra, PolicyName } from '../../model/world/config.js';
import { counterexampleOfBreak, type VerifyCounterexample } from './counterexample.js';
import { search, type SearchProgress } from './engine.js';
import { searchParallel } from './parallel.js';

import { clientSubject } from './spec.js';

export { CLIENT_NAMES, clientSubject } from './spec.js';

/** A claim's result within the scope. */
export interface ClaimResult {
  name: string;
  proven: boolean;
  /** Distinct states whose ended world the claim applied to (0: vacuous here). */
  applied: number;
  counterexample: VerifyCounterexample | null;
}

/** The outcome of one verification. */
export interface VerifyRun {
  scope: string;
  policy: PolicyName;
  client: string;
  configs: number;
  distinct: number;
  generated: number;
  depth: number;
  elapsedMs: number;
  complete: boolean;
  /** Bytes of the fingerprint set and parent pointers, and the largest frontier (states). */
  bytes: number;
  peakFrontier: number;
  /** Worker threads the search ran on. */
  workers: number;
  claims: ClaimResult[];
}

/** Options of {@link verifyOne}. */
export interface VerifyOptions {
  coverage?: Set<string>;
  onProgress?: (p: SearchProgress) => void;
  maxStates?: number;
  /** Worker threads (default 1: this thread); the result is the same for any number. */
  workers?: number;
  /** In the A2A world: only the configurations of this era. */
  era?: A2aEra;
}

/** Searches `scope` with the server running (and declaring) `policy` and client `client`. */
export function verifyOne(
  scope: Scope,
  policy: PolicyName,
  client: string,
  options: VerifyOptions = {},
): VerifyRun {
  const configs = scopeConfigs(scope, policy, options.era);
  const subject = clientSubject(client);
  const limits = {
    ...(options.coverage ? { coverage: options.coverage } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    ...(options.maxStates !== undefined ? { maxStates: options.maxStates } : {}),
  };
  const workers = options.workers ?? 1;
  const r =
    workers > 1
      ? searchParallel(
          {
            scope: scope.name,
            policy,
            client,
            ...(options.era !== undefined ? { era: options.era } : {}),
          },
          { workers, ...limits },
        )
      : search({ configs, subject, claims: CLAIMS, bounds: scope.bounds, ...limits });
  return {
    scope: scope.name,
    policy,
    client,
    configs: configs.length,
    distinct: r.distinct,
    generated: r.generated,
    depth: r.maxDepth,
    elapsedMs: r.elapsedMs,
    complete: r.complete,
    bytes: r.bytes,
    peakFrontier: r.peakFrontier,
    workers: r.workers,
    claims: CLAIMS.map((c) => {
      const b = r.breaks.find((x) => x.claim === c.name);
      const counterexample: VerifyCounterexample | null = b
        ? counterexampleOfBreak(b, configs, client, subject)
        : null;
      return { name: c.name, proven: !b, applied: r.applied[c.name] ?? 0, counterexample };
    }),
  };
}
