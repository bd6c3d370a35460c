/** The `explore` report in words. */
import { formatKillTable } from '../../model/mutants/kill-table.js';
import {
  formatCounterexample,
  type Counterexample,
  type CounterexampleOptions,
} from '../../model/world/counterexample.js';
import { formatWorldString, namesOf } from './world-string.js';
import { formatConfig } from '../../model/world/config.js';
import { formatSeedVariants } from '../../model/seed-variants.js';
import { coverageOf, type ExploreReport } from './explore.js';

const n = (x: number): string => x.toLocaleString('en-US');

/**
 * The transitions not taken: all of them with `--verbose` (docs/world.md says why a world cannot
 * take them), otherwise only their count, so that the summary stays readable.
 */
function missedText(missed: readonly string[], verbose: boolean): string {
  if (missed.length === 0) return '';
  if (!verbose) return ` (${missed.length} not taken; --verbose lists them)`;
  return ` (not taken: ${missed.join(', ')})`;
}

/** The world features `explore` counts, in words a reader without the model's vocabulary follows. */
const FEATURE_WORDS: Readonly<Record<string, string>> = {
  'polling server': 'a server that closes idle resumed streams (Q > 0)',
  'no acknowledgment': 'an honest server that states no replay floor',
  'client polled': 'the client polled (reconnected with the same cursor)',
  'unprimed opening': 'no priming event on the first stream',
  'primed resumes': 'a priming event on every resumed stream',
};

/** The one-line verdict the report opens with. */
function summaryLine(r: ExploreReport): string {
  const s = r.stats;
  const broken = r.counterexample?.claim;
  const claims = broken
    ? `claim ${broken} BROKEN (counterexample below)`
    : `every claim held over ${n(s.runs)} worlds`;
  const parts = [claims];
  if (r.error) parts.push(`error: ${r.error}`);
  if (r.killTable.length > 0) {
    const killed = r.killTable.filter((k) => k.claim !== null).length;
    parts.push(`${killed} of ${r.killTable.length} mutants killed`);
  }
  return `summary: ${parts.join('; ')}`;
}

/** The command line that reruns an exploration exactly (with npx: in a clone the bin is not on PATH). */
export function rerunCommand(r: ExploreReport): string {
  const o = r.options;
  const parts = ['npx mcp-resumption explore', `--seed ${o.seed}`];
  parts.push(o.runs !== undefined ? `--runs ${o.runs}` : `--runs ${r.stats.runs}`);
  if (o.kind !== 'mixed') parts.push(`--kind ${o.kind}`);
  if (o.binding !== undefined && o.binding !== 'mcp-sse') parts.push(`--binding ${o.binding}`);
  if (o.config) parts.push(`--config ${formatConfig(o.config)}`);
  if (o.mutant !== undefined) parts.push(`--mutant ${o.mutant}`);
  return parts.join(' ');
}

/** The counterexample's world as a world string, for the playground. */
export function playgroundLine(cx: Counterexample): string {
  const spec = { cfg: cx.cfg, commands: cx.commands, ...namesOf(cx.subject ?? {}, cx.cfg) };
  return `playground: ${formatWorldString(spec)}`;
}

/** The whole report; `options` choose how a counterexample's timeline is printed. */
export function formatExploreReport(
  r: ExploreReport,
  options: CounterexampleOptions = {},
  verbose = false,
): string {
  const s = r.stats;
  const o = r.options;
  const secs = r.elapsedMs / 1000;
  const lines: string[] = [];
  lines.push(
    `mcp-resumption explore: seed ${o.seed}, worlds: ${o.kind}${o.binding !== undefined && o.binding !== 'mcp-sse' ? ` (binding ${o.binding})` : ''}${o.config ? ` (fixed config ${formatConfig(o.config)})` : ''}${o.mutant !== undefined ? `, subject: mutant ${o.mutant}` : ", subject: the model's client"}`,
  );
  lines.push(summaryLine(r));
  lines.push('');
  lines.push(
    `interleavings explored: ${n(s.runs)} in ${secs.toFixed(1)} s (${n(Math.round(s.runs / Math.max(secs, 1e-3)))}/s)`,
  );
  lines.push(
    `steps (commands): ${n(s.steps)} (average ${(s.steps / Math.max(1, s.runs)).toFixed(1)} per interleaving); machine observations: ${n(s.observations)}`,
  );
  const feats = Object.entries(s.features);
  if (feats.length > 0) {
    lines.push(
      `worlds with: ${feats.map(([k, v]) => `${FEATURE_WORDS[k] ?? k}: ${n(v)}`).join('; ')} (see docs/world.md)`,
    );
  }
  lines.push('');
  lines.push('claims:');
  const broken = r.counterexample?.claim;
  for (const c of r.claims) {
    const applied = s.applied[c.name] ?? 0;
    let text: string;
    if (c.name === broken) text = `BROKEN  after ${n(s.runs)} worlds (counterexample below)`;
    else if (applied === 0)
      text = 'n/a     its preconditions (the conditions of validity) never held';
    else if (applied === s.runs) text = `held    in all ${n(applied)} worlds`;
    else text = `held    in ${n(applied)} applicable worlds`;
    lines.push(`  ${c.name.padEnd(22)} ${text}`);
  }
  if (r.error) lines.push(`  error (not a claim): ${r.error}`);
  lines.push('');
  const cov = coverageOf(s);
  lines.push(
    `machine states visited: ${cov.states.visited.length} of ${cov.states.visited.length + cov.states.missed.length}${cov.states.missed.length ? ` (not visited: ${cov.states.missed.join(', ')})` : ''}`,
  );
  lines.push(
    `machine transitions taken: ${cov.transitions.taken} of ${cov.transitions.total}${missedText(cov.transitions.missed, verbose)}`,
  );
  if (r.counterexample) {
    lines.push('');
    lines.push(formatCounterexample(r.counterexample, options));
    lines.push(playgroundLine(r.counterexample));
  }
  if (r.killTable.length > 0) {
    lines.push('');
    lines.push(
      `mutant kill table (seed ${o.seed}, at most ${n(o.killRuns)} runs per probe; runs to kill ` +
        `adds up every probe tried, so it can exceed that; ` +
        `${(r.killMs / 1000).toFixed(1)} s; regenerate with ` +
        (o.binding === 'mcp-tasks' || o.binding === 'a2a'
          ? `\`mcp-resumption explore --binding ${o.binding} --seed ${o.seed} --mutant-runs ${o.killRuns}\`):`
          : `\`mcp-resumption mutants --seed ${o.seed} --runs ${o.killRuns}\`):`),
    );
    lines.push(formatKillTable(r.killTable));
  }
  lines.push('');
  // The incident this project exists for, classified by the same machine (also `table`).
  lines.push(formatSeedVariants());
  lines.push('');
  lines.push(`seed: ${o.seed}`);
  lines.push(`rerun: ${rerunCommand(r)}`);
  return lines.join('\n');
}
