/**
 * The report of `mcp-resumption verify`, TLC style: distinct states, states generated, depth,
 * distinct states per minute and bytes per state for each search, then each claim proven
 * within the scope or broken, with the shortest counterexample of a broken claim.
 */
import type { Scope } from '../../model/verify/scope.js';
import { formatVerifyCounterexample, verifyReplayCommand } from './counterexample.js';
import type { VerifyRun } from './run.js';

/** `Bounds` of a scope in one line. */
export function describeScope(scope: Scope): string {
  const b = scope.bounds;
  return `N=${scope.N} events per call, at most ${b.restarts} restart(s), ${b.disconnects} disconnect(s), ${b.reconnects} reconnect(s), ${b.otherEmits} other-stream event(s)`;
}

const perMinute = (r: { distinct: number; elapsedMs: number }): number =>
  r.elapsedMs > 0 ? Math.round((r.distinct / r.elapsedMs) * 60_000) : 0;

/** One progress line (stderr). */
export function progressLine(
  label: string,
  p: { distinct: number; generated: number; depth: number; queued: number; elapsedMs: number },
): string {
  return `verify ${label}: ${p.distinct} distinct, ${p.generated} generated, depth ${p.depth}, ${p.queued} queued, ${(p.elapsedMs / 1000).toFixed(1)} s`;
}

/** The report of a list of runs. */
export function formatVerifyReport(scope: Scope, runs: readonly VerifyRun[]): string {
  const lines = [
    `verify: scope ${scope.name} (${describeScope(scope)}); breadth-first, deterministic (no seed)`,
  ];
  for (const r of runs) {
    lines.push('');
    lines.push(
      `${r.client} client against a server running ${r.policy} (${r.configs} initial configurations)`,
    );
    lines.push(
      `  ${r.distinct} distinct states found, ${r.generated} states generated, depth ${r.depth}${r.complete ? '' : ' (INCOMPLETE: state limit reached)'}`,
    );
    lines.push(
      `  ${(r.elapsedMs / 1000).toFixed(1)} s, ${perMinute(r)} distinct states/min, ${(r.bytes / Math.max(1, r.distinct)).toFixed(1)} bytes/state (fingerprints and the largest frontier, held as paths), largest level ${r.peakFrontier} states, ${r.workers} worker(s)`,
    );
    for (const c of r.claims) {
      const status = c.proven
        ? c.applied > 0
          ? `proven within scope (applies to ${c.applied} ended states)`
          : 'proven within scope (vacuously: applies to no state, its conditions never hold here)'
        : `BROKEN at depth ${c.counterexample!.depth}: ${c.counterexample!.why}`;
      lines.push(`  ${c.name.padEnd(22)} ${status}`);
      if (c.counterexample) lines.push(`    replay: ${verifyReplayCommand(c.counterexample)}`);
    }
  }
  const broken = runs.flatMap((r) => r.claims.filter((c) => c.counterexample));
  const total = runs.reduce((a, r) => a + r.distinct, 0);
  const ms = runs.reduce((a, r) => a + r.elapsedMs, 0);
  lines.push('');
  lines.push(
    `total: ${total} distinct states in ${runs.length} search(es), ${(ms / 1000).toFixed(1)} s, ${perMinute({ distinct: total, elapsedMs: ms })} distinct states/min; ${broken.length === 0 ? 'every claim proven within scope' : `${broken.length} claim(s) broken`}`,
  );
  // The first counterexample of each claim, in full.
  const shown = new Set<string>();
  for (const c of broken) {
    if (shown.has(c.name)) continue;
    shown.add(c.name);
    lines.push('');
    lines.push(formatVerifyCounterexample(c.counterexample!));
  }
  return lines.join('\n');
}

/** The runs as JSON (counterexamples with their commands and replay command). */
export function verifyJson(scope: Scope, runs: readonly VerifyRun[]): unknown {
  return {
    scope: scope.name,
    N: scope.N,
    bounds: scope.bounds,
    deterministic: true,
    runs: runs.map((r) => ({
      policy: r.policy,
      client: r.client,
      configs: r.configs,
      distinct: r.distinct,
      generated: r.generated,
      depth: r.depth,
      complete: r.complete,
      elapsedMs: Math.round(r.elapsedMs),
      distinctPerMinute: perMinute(r),
      bytesPerState: r.bytes / Math.max(1, r.distinct),
      workers: r.workers,
      claims: r.claims.map((c) => ({
        name: c.name,
        proven: c.proven,
        applied: c.applied,
        ...(c.counterexample
          ? {
              counterexample: {
                why: c.counterexample.why,
                depth: c.counterexample.depth,
                commands: c.counterexample.commands,
                replay: verifyReplayCommand(c.counterexample),
              },
            }
          : {}),
      })),
    })),
  };
}
