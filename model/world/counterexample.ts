/**
 * Counterexamples people can follow: the failing world replayed with a timeline, the claim that
 * broke and why, and the exact command that replays it.
 */
import type { ClaimName } from '../claims/types.js';
import { claimNamed } from '../claims/index.js';
import { MACHINE_MUTANTS } from '../mutants/machine-mutants.js';
import type { WorldKind } from './arbitraries.js';
import { formatTime } from './clock.js';
import { describeCommand, type WorldCommand } from './commands.js';
import { bindingOfPolicy, formatConfig, type WorldConfig } from './config.js';
import { ClaimBroken, replayPathOf, runWorld, toWorldCommands, type Subject } from './property.js';
import type { ConditionName } from './validity.js';
import type { TimelineEntry } from './timeline.js';
import { describeRun, foldTimeline, runSpan, type FoldedRun } from './timeline-fold.js';
import { sequenceDiagram } from './sequence-diagram.js';
import type { World } from './world.js';

/** Everything needed to show and replay one failure. */
export interface Counterexample {
  kind: WorldKind;
  cfg: WorldConfig;
  commands: WorldCommand[];
  subject?: Subject;
  /** The name the subject goes by in the replay command (a mutant), if not the model. */
  subjectName?: string;
  claim: ClaimName;
  ignore?: ConditionName;
  seed: number;
  path: string;
  replayPath?: string;
  /** The exploration used this fixed configuration (`--config`) rather than generated ones. */
  fixedConfig?: boolean;
}

/** What a replay command needs. */
export type ReplayRef = Pick<
  Counterexample,
  'seed' | 'path' | 'replayPath' | 'kind' | 'subjectName'
> & {
  fixedConfig?: boolean;
  cfg?: WorldConfig;
};

/** The shell command that replays a counterexample. */
export function replayCommand(cx: ReplayRef): string {
  const parts = ['npx mcp-resumption explore', `--seed ${cx.seed}`, `--path ${cx.path}`];
  if (cx.replayPath !== undefined) parts.push(`--replay-path '${cx.replayPath}'`);
  parts.push(`--kind ${cx.kind}`);
  // A task or A2A policy's world was generated under its binding.
  const binding = cx.cfg ? bindingOfPolicy(cx.cfg.policy) : 'mcp-sse';
  if (binding !== 'mcp-sse') parts.push(`--binding ${binding}`);
  if (cx.fixedConfig && cx.cfg) parts.push(`--config ${formatConfig(cx.cfg)}`);
  if (cx.subjectName !== undefined) parts.push(`--mutant ${cx.subjectName}`);
  return parts.join(' ');
}

/** Pads a column; a text longer than its column still keeps one space before the next. */
function pad(s: string, n: number): string {
  return s.length >= n ? s + ' ' : s + ' '.repeat(n - s.length);
}

const same = (a: TimelineEntry, b: TimelineEntry): boolean =>
  a.actor === b.actor && a.action === b.action && a.state === b.state && a.cursor === b.cursor;

/**
 * The action with its numbers blanked and a word repeated in a row said once: a loop whose ids
 * rise is the same loop each time, and so is one whose replay grows by one priming event per
 * reconnect (`replays 1(priming)`, then `replays 1(priming) 2(priming)`, ...).
 */
const shape = (action: string): string =>
  action
    .replace(/\d+/g, '#')
    .split(' ')
    .filter((word, k, words) => k === 0 || word !== words[k - 1])
    .join(' ');

/** {@link same}, except for the numbers in the action (a brief timeline's loose repeat). */
const sameShape = (a: TimelineEntry, b: TimelineEntry): boolean =>
  a.actor === b.actor &&
  a.state === b.state &&
  a.cursor === b.cursor &&
  (a.action === b.action || shape(a.action) === shape(b.action));

/**
 * How many times the block of `p` entries at `i` repeats right after itself: exactly, or with
 * `loose`, up to the numbers in its actions (a reconnect loop that primes a new id each time).
 */
function repeats(es: readonly TimelineEntry[], i: number, p: number, loose = false): number {
  const eqOf = loose ? sameShape : same;
  let r = 0;
  for (let j = i + p; j + p <= es.length; j += p) {
    let eq = true;
    for (let k = 0; k < p && eq; k++) eq = eqOf(es[i + k]!, es[j + k]!);
    if (!eq) break;
    r++;
  }
  return r;
}

/** How a timeline is printed. */
export interface TimelineOptions {
  /**
   * Fold runs of routine lines (emits, arrivals in order, time passing) into one line each,
   * and start with a legend of the columns and the time stamps.
   */
  brief?: boolean;
}

/** The legend of a `--brief` timeline: what the time stamps and the folded lines mean. */
export const BRIEF_LEGEND: readonly string[] = [
  '  legend: time is virtual, m:ss since the tool call started, with fractions of a second after',
  '  a dot (6:58 = 418 s, 0:00.1 = 100 ms); a-b is a span. A line "events a..b (n) ..." folds a',
  '  run of routine lines (the tool appending events, events arriving in order, time passing,',
  '  blocked keepalives); # gives the first and last line it folds. state and cursor are the',
  "  client machine's after the line.",
];

/** `Advance(8000) x41, Emit x41, Drain`: the commands a heading covers, counted. */
function commandSummary(commands: readonly WorldCommand[], from: number, to: number): string {
  const counts = new Map<string, number>();
  for (let k = from; k <= to; k++) {
    const d = describeCommand(commands[k]!);
    counts.set(d, (counts.get(d) ?? 0) + 1);
  }
  return [...counts].map(([d, n]) => (n > 1 ? `${d} x${n}` : d)).join(', ');
}

/**
 * The numbered timeline of a world that was run with `record: true`. A block of lines that
 * repeats (a reconnect loop) is printed once, followed by how often it repeats; with `brief`,
 * runs of routine lines are folded too (see {@link foldTimeline}), and a block also counts as
 * repeated when only the numbers in its actions change (a loop that primes a new id each time).
 */
export function formatTimeline(
  w: World,
  commands: readonly WorldCommand[],
  options: TimelineOptions = {},
): string[] {
  const num = options.brief ? 10 : 6;
  const lines = [
    ...(options.brief ? BRIEF_LEGEND : []),
    `  ${pad('#', num)}${pad('time', 10)}${pad('actor', 9)}${pad('action', 56)}${pad('client state', 18)}cursor`,
  ];
  const es = w.timeline ?? [];
  const runs = new Map<number, FoldedRun>();
  if (options.brief)
    for (const seg of foldTimeline(es)) if (seg.k === 'run') runs.set(seg.run.from, seg.run);
  const heading = (command: number, first: boolean) =>
    command < 0
      ? first
        ? 'setup'
        : 'epilogue (release the app, let the tool finish, let time pass)'
      : `command ${command + 1}: ${describeCommand(commands[command]!)}`;
  let lastCommand = -2;
  let i = 0;
  // Repeated blocks are looked for only after the last folded run, never across it.
  let after = 0;
  while (i < es.length) {
    const e = es[i]!;
    const run = runs.get(i);
    if (run) {
      const last = es[run.to]!;
      const c0 = e.command < 0 ? e.command : Math.max(e.command, lastCommand + 1);
      if (last.command !== lastCommand) {
        lines.push(
          c0 < 0 || c0 === last.command
            ? `        -- ${heading(last.command, false)}`
            : `        -- commands ${c0 + 1}..${last.command + 1}: ${commandSummary(commands, c0, last.command)}`,
        );
        lastCommand = last.command;
      }
      lines.push(
        `  ${pad(`${i + 1}-${run.to + 1}`, num)}${pad(runSpan(run), 10)}${pad('', 9)}${pad(`${describeRun(run)}, ${run.to - run.from + 1} lines`, 56)}${pad(last.state, 18)}${last.cursor}`,
      );
      i = run.to + 1;
      after = i;
      continue;
    }
    if (e.command !== lastCommand) {
      lastCommand = e.command;
      lines.push(`        -- ${heading(e.command, e.t === 0 && i === 0)}`);
    }
    lines.push(
      `  ${pad(String(i + 1), num)}${pad(formatTime(e.t), 10)}${pad(e.actor, 9)}${pad(e.action, 56)}${pad(e.state, 18)}${e.cursor}`,
    );
    i++;
    for (let p = 1; p <= 8; p++) {
      const start = i - p;
      if (start < after) break;
      const r = repeats(es, start, p, options.brief);
      if (r >= 2) {
        const skipTo = i + r * p;
        const last = es[skipTo - 1]!;
        const exact = !options.brief || repeats(es, start, p) >= r;
        lines.push(
          `        ... the ${p === 1 ? 'line' : `${p} lines`} above repeat ${r} more time(s)${exact ? '' : ' (only the numbers in them change)'}, until ${formatTime(last.t)} (entries ${i + 1}..${skipTo})`,
        );
        i = skipTo;
        break;
      }
    }
  }
  return lines;
}

/** How a counterexample is printed: the full timeline, a `brief` one, or a Mermaid diagram. */
export interface CounterexampleOptions extends TimelineOptions {
  /** A Mermaid sequence diagram (a fenced block) instead of the text timeline. */
  mermaid?: boolean;
}

/**
 * The timeline of a recorded world as the options ask: numbered lines (full or brief), or a
 * fenced Mermaid sequence diagram.
 */
export function timelineLines(
  w: World,
  commands: readonly WorldCommand[],
  options: CounterexampleOptions = {},
): string[] {
  if (options.mermaid) return ['sequence diagram:', '```mermaid', sequenceDiagram(w), '```'];
  return ['timeline:', ...formatTimeline(w, commands, options)];
}

/**
 * Which client and which server the world ran, when either is not the model's own: a server
 * mutant is shown breaking a safety claim against the trusting `accept-any-200` machine (the
 * model's client refuses what such a server does), and a reader must not take that client
 * for the model's.
 */
function whoIsWho(subject: Subject | undefined, cfg: WorldConfig): string[] {
  const lines: string[] = [];
  if (subject?.policy !== undefined) {
    lines.push(
      `server: runs the ${subject.policy} policy (a server mutant) while declaring policy=${cfg.policy}`,
    );
  }
  const machine = subject?.machine;
  if (machine !== undefined) {
    // A client mutant is already named by the subject line; a machine mutant under a server
    // mutant is not, and is the one a reader would take for the model's client.
    const named = MACHINE_MUTANTS.find((m) => m.machine === machine);
    if (named)
      lines.push(`client: the ${named.name} machine, not the model's (${named.description})`);
  }
  return lines;
}

/** The counterexample in words: configuration, commands, timeline, broken claim, replay. */
export function formatCounterexample(
  cx: Counterexample,
  options: CounterexampleOptions = {},
): string {
  const w = runWorld(cx.cfg, cx.commands, cx.subject ?? {}, { record: true });
  const claim = claimNamed(cx.claim);
  const verdict = claim.check(w, cx.ignore === undefined ? {} : { ignore: cx.ignore });
  const lines: string[] = [];
  lines.push(`counterexample (${cx.commands.length} command(s)) in a ${cx.kind} world`);
  if (cx.subjectName !== undefined) lines.push(`subject: ${cx.subjectName}`);
  lines.push(...whoIsWho(cx.subject, cx.cfg));
  lines.push(`config: ${formatConfig(cx.cfg)}`);
  lines.push(`commands: ${cx.commands.map(describeCommand).join(', ') || '(none)'}`);
  lines.push(...timelineLines(w, cx.commands, options));
  lines.push(
    `claim broken: ${claim.name}: ${verdict.ok ? '(held on replay: the failure is not deterministic!)' : verdict.why}`,
  );
  lines.push(`  (${claim.text})`);
  lines.push(`replay: ${replayCommand(cx)}`);
  return lines.join('\n');
}

/** What a failed `fc.check` of a world property says, as a {@link Counterexample}. */
export function counterexampleOf(
  details: {
    failed: boolean;
    seed: number;
    counterexamplePath: string | null;
    counterexample: [WorldConfig, Iterable<unknown>] | null;
    errorInstance: unknown;
  },
  context: {
    kind: WorldKind;
    subject?: Subject;
    subjectName?: string;
    ignore?: ConditionName;
    fixedConfig?: boolean;
  },
): Counterexample | null {
  if (!details.failed || details.counterexample === null) return null;
  const [cfg, cmds] = details.counterexample;
  const err = details.errorInstance;
  if (!(err instanceof ClaimBroken)) return null;
  const replayPath = replayPathOf(cmds);
  return {
    kind: context.kind,
    cfg,
    commands: toWorldCommands(cmds),
    ...(context.subject ? { subject: context.subject } : {}),
    ...(context.subjectName !== undefined ? { subjectName: context.subjectName } : {}),
    ...(context.ignore !== undefined ? { ignore: context.ignore } : {}),
    ...(context.fixedConfig ? { fixedConfig: true } : {}),
    claim: err.claim.name,
    seed: details.seed,
    path: details.counterexamplePath ?? '',
    ...(replayPath !== undefined ? { replayPath } : {}),
  };
}
