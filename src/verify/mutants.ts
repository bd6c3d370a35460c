/**
 * The mutant zoo under exhaustive search: each mutant's probes (model/mutants/kill-table.ts)
 * searched breadth-first in the scope's worlds of the probe's kind, stopping at the first
 * broken claim, so the counterexample is a shortest one in moves; the shortest over the probes
 * wins (the earlier probe on a tie). Beside it, for the comparison table, the random search of
 * the kill table, timed in the same run.
 */
import { killMutant, type MutantEntry } from '../../model/mutants/kill-table.js';
import { probeConfigs } from '../../model/verify/probes.js';
import type { Scope } from '../../model/verify/scope.js';
import { commandsOfPath, type VerifyCounterexample } from './counterexample.js';
import { search } from './engine.js';

/** An exhaustive kill. */
export interface ExhaustiveKill {
  mutant: string;
  side: 'client' | 'server';
  /** The claim that killed it (`null`: it survived the whole scope). */
  claim: string | null;
  /** Distinct states searched over the probes tried. */
  states: number;
  elapsedMs: number;
  counterexample: VerifyCounterexample | null;
}

/** Searches one mutant exhaustively within `scope`. */
export function exhaustiveKill(entry: MutantEntry, scope: Scope): ExhaustiveKill {
  const t0 = performance.now();
  let states = 0;
  let best: VerifyCounterexample | null = null;
  for (const probe of entry.probes) {
    const configs = probeConfigs(scope, probe.kind);
    const r = search({
      configs,
      subject: probe.subject,
      claims: probe.claims,
      bounds: scope.bounds,
      stopAtFirstBreak: true,
      // A probe need not look deeper than the kill already in hand.
      ...(best ? { maxDepth: best.depth } : {}),
    });
    states += r.distinct;
    const b = r.breaks[0];
    if (!b) continue;
    const cfg = configs[b.root]!;
    const commands = commandsOfPath(cfg, probe.subject, b.moves);
    if (best && commands.length >= best.commands.length) continue;
    best = {
      claim: b.claim,
      why: b.why,
      cfg,
      client:
        entry.side === 'client' ? entry.name : probe.subject.machine ? 'trusts-any-200' : 'model',
      ...(entry.side === 'server' ? { runs: entry.name } : {}),
      subject: probe.subject,
      depth: b.depth,
      commands,
    };
  }
  return {
    mutant: entry.name,
    side: entry.side,
    claim: best?.claim ?? null,
    states,
    elapsedMs: performance.now() - t0,
    counterexample: best,
  };
}

/** A row of the comparison: exhaustive against random, for one mutant. */
export interface ComparisonRow {
  exhaustive: ExhaustiveKill;
  random: { claim: string | null; runs: number; length: number | null; elapsedMs: number };
}

/** Both searches for one mutant, in the same run (random: `runsPerProbe` runs, seed `seed`). */
export function compareKill(
  entry: MutantEntry,
  scope: Scope,
  runsPerProbe: number,
  seed: number,
): ComparisonRow {
  const exhaustive = exhaustiveKill(entry, scope);
  const t0 = performance.now();
  const row = killMutant(entry, runsPerProbe, seed);
  return {
    exhaustive,
    random: {
      claim: row.claim,
      runs: row.runs,
      length: row.shrunkLength,
      elapsedMs: performance.now() - t0,
    },
  };
}
