/**
 * One verification: a scope, a server policy and a client, searched exhaustively with every
 * claim; the counts TLC prints, each claim proven within the scope or broken with its shortest
 * counterexample.
 */
import { CLAIMS } from '../../model/claims/index.js';
import { CLIENT_MUTANTS } from '../../model/mutants/client-mutants.js';
import { scopeConfigs, type Scope } from '../../model/verify/scope.js';
import type { PolicyName } from '../../model/world/config.js';
import type { Subject } from '../../model/world/property.js';
import { commandsOfPath, type VerifyCounterexample } from './counterexample.js';
import { search, type SearchProgress } from './engine.js';

/** The clients `--client` accepts: the model's, and each client mutant of the zoo. */
export const CLIENT_NAMES: readonly string[] = ['model', ...CLIENT_MUTANTS.map((m) => m.name)];

/** What runs as client `name` (`model`: the model's client). */
export function clientSubject(name: string): Subject {
  if (name === 'model') return {};
  const m = CLIENT_MUTANTS.find((x) => x.name === name);
  if (!m) throw new Error(`no client ${name}`);
  return m.subject;
}

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
  claims: ClaimResult[];
}

/** Options of {@link verifyOne}. */
export interface VerifyOptions {
  coverage?: Set<string>;
  onProgress?: (p: SearchProgress) => void;
  maxStates?: number;
}

/** Searches `scope` with the server running (and declaring) `policy` and client `client`. */
export function verifyOne(
  scope: Scope,
  policy: PolicyName,
  client: string,
  options: VerifyOptions = {},
): VerifyRun {
  const configs = scopeConfigs(scope, policy);
  const subject = clientSubject(client);
  const r = search({
    configs,
    subject,
    claims: CLAIMS,
    bounds: scope.bounds,
    ...(options.coverage ? { coverage: options.coverage } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    ...(options.maxStates !== undefined ? { maxStates: options.maxStates } : {}),
  });
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
    claims: CLAIMS.map((c) => {
      const b = r.breaks.find((x) => x.claim === c.name);
      let counterexample: VerifyCounterexample | null = null;
      if (b) {
        const cfg = configs[b.root]!;
        counterexample = {
          claim: c.name,
          why: b.why,
          cfg,
          client,
          subject,
          depth: b.depth,
          commands: commandsOfPath(cfg, subject, b.moves),
        };
      }
      return { name: c.name, proven: !b, applied: r.applied[c.name] ?? 0, counterexample };
    }),
  };
}
