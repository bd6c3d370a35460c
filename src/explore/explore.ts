/**
 * The exploration behind `mcp-resumption explore`: fast-check generates worlds (configurations
 * and interleavings of events, evictions, restarts, stalls and reconnects) around the model's
 * client, every claim is checked on each, and the mutant zoo is searched for its kill table.
 */
import fc from 'fast-check';
import { clientMachine } from '../../model/client-machine.js';
import { CLAIMS, type Claim } from '../../model/claims/index.js';
import {
  killTable,
  mutantEntries,
  a2aMutantEntries,
  taskMutantEntries,
  type KillRow,
} from '../../model/mutants/kill-table.js';
import { listStates, listTransitions } from '../../model/transitions.js';
import type { WorldKind } from '../../model/world/arbitraries.js';
import { counterexampleOf, type Counterexample } from '../../model/world/counterexample.js';
import type { WorldConfig } from '../../model/world/config.js';
import {
  newStats,
  worldProperty,
  type ExploreStats,
  type Subject,
} from '../../model/world/property.js';
import type { ConditionName } from '../../model/world/validity.js';

/** What to explore. */
export interface ExploreOptions {
  /** Time budget of the whole exploration, kill table included (seconds). */
  seconds: number;
  /** A number of worlds instead of a time budget. */
  runs?: number;
  seed: number;
  kind: WorldKind;
  /** A fixed configuration (`--config`). */
  config?: WorldConfig;
  /** Explore a mutant (by name) instead of the model's client. */
  mutant?: string;
  /** Replay: the path and replayPath of a counterexample. */
  path?: string;
  replayPath?: string;
  /** Runs per probe of the kill table (0: no kill table). */
  killRuns: number;
  /**
   * `mcp-tasks`: explore the task-stream world (task policies, the client's input through the
   * binding's translator). Its kill table searches the binding's mutants and the client
   * mutants in task-stream worlds.
   */
  binding?: string;
  /** Progress lines (stderr). */
  progress?: (line: string) => void;
}

/** The outcome of an exploration. */
export interface ExploreReport {
  options: ExploreOptions;
  stats: ExploreStats;
  elapsedMs: number;
  claims: readonly Claim[];
  /** The counterexample, when a claim broke. */
  counterexample: Counterexample | null;
  /** Failure that was not a claim (a bug in the world itself). */
  error: string | null;
  killTable: KillRow[];
  killMs: number;
}

/** The subject, claims and ignored condition of `--mutant NAME` in a world of `kind`. */
export function subjectFor(
  mutant: string | undefined,
  kind: WorldKind,
): { subject: Subject; claims: readonly Claim[] } {
  if (mutant === undefined) return { subject: {}, claims: CLAIMS };
  const entry = mutantEntries().find((e) => e.name === mutant);
  if (!entry) throw new Error(`unknown mutant ${mutant}`);
  const probe = entry.probes.find((p) => p.kind === kind) ?? entry.probes[0]!;
  return { subject: probe.subject, claims: probe.claims };
}

/** The condition a `break:` kind leaves out of the claims' preconditions. */
export function ignoredBy(kind: WorldKind): ConditionName | undefined {
  return kind.startsWith('break:') ? (kind.slice('break:'.length) as ConditionName) : undefined;
}

/** Runs an exploration. */
export function explore(options: ExploreOptions): ExploreReport {
  const t0 = performance.now();
  const stats = newStats();
  const { subject, claims } = subjectFor(options.mutant, options.kind);
  const ignore = ignoredBy(options.kind);
  const replaying = options.path !== undefined;
  const mainMs = Math.max(200, options.seconds * 1000 * (options.killRuns > 0 ? 0.85 : 1));
  let lastProgress = t0;
  const prop = worldProperty({
    kind: options.kind,
    claims,
    subject,
    stats,
    coverage: true,
    ...(ignore ? { ignore } : {}),
    ...(options.config ? { config: options.config } : {}),
    ...(options.binding !== undefined ? { binding: options.binding } : {}),
    ...(options.replayPath !== undefined ? { replayPath: options.replayPath } : {}),
    onProgress: (s) => {
      const now = performance.now();
      if (now - lastProgress < 1_000) return;
      lastProgress = now;
      const secs = (now - t0) / 1000;
      options.progress?.(
        `explore: ${s.runs} interleavings, ${s.steps} steps, ${secs.toFixed(1)} s of ${options.seconds} s`,
      );
    },
  });
  const params: fc.Parameters<[WorldConfig, Iterable<fc.Command<object, unknown>>]> = {
    seed: options.seed,
    ...(replaying
      ? { path: options.path!, numRuns: 1, endOnFailure: true }
      : options.runs !== undefined
        ? { numRuns: options.runs }
        : {
            numRuns: Number.MAX_SAFE_INTEGER,
            interruptAfterTimeLimit: mainMs,
            markInterruptAsFailure: false,
          }),
  };
  const details = fc.check(prop, params as never);
  const cx = counterexampleOf(details as never, {
    kind: options.kind,
    subject,
    ...(options.mutant !== undefined ? { subjectName: options.mutant } : {}),
    ...(ignore ? { ignore } : {}),
    ...(options.config ? { fixedConfig: true } : {}),
  });
  const error =
    details.failed && cx === null ? String(details.errorInstance ?? 'property failed') : null;
  const elapsedMs = performance.now() - t0;
  let rows: KillRow[] = [];
  const k0 = performance.now();
  const tasks = options.binding === 'mcp-tasks';
  const a2a = options.binding === 'a2a';
  if (options.killRuns > 0 && !replaying && options.mutant === undefined) {
    rows = killTable({
      runsPerProbe: options.killRuns,
      seed: options.seed,
      // Under mcp-tasks: the binding's mutants and the client mutants, in task-stream worlds.
      ...(tasks ? { entries: taskMutantEntries() } : {}),
      // Under a2a: its binding's mutants, the client mutants and its server mutants, in A2A worlds.
      ...(a2a ? { entries: a2aMutantEntries() } : {}),
      onRow: (r) =>
        options.progress?.(`mutants: ${r.mutant} ${r.claim ? `killed by ${r.claim}` : 'survived'}`),
    });
  }
  return {
    options,
    stats,
    elapsedMs,
    claims,
    counterexample: cx,
    error,
    killTable: rows,
    killMs: performance.now() - k0,
  };
}

/** The machine states and transitions an exploration visited. */
export function coverageOf(stats: ExploreStats): {
  states: { visited: string[]; missed: string[] };
  transitions: { taken: number; total: number; missed: string[] };
} {
  const all = listTransitions(clientMachine);
  const visited = new Set<string>();
  for (const t of all) {
    if (!stats.transitions.has(t.id)) continue;
    visited.add(t.source);
    visited.add(t.target ?? t.source);
  }
  const states = listStates(clientMachine);
  return {
    states: {
      visited: states.filter((s) => visited.has(s)),
      missed: states.filter((s) => !visited.has(s)),
    },
    transitions: {
      taken: all.filter((t) => stats.transitions.has(t.id)).length,
      total: all.length,
      missed: all.filter((t) => !stats.transitions.has(t.id)).map((t) => t.id),
    },
  };
}
