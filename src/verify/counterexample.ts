/**
 * A broken claim's shortest path turned into what `explore` prints: the world commands (each
 * `Tick` as the `Advance(ms)` it was, consecutive ones merged, since advancing twice is
 * advancing once by the sum), the numbered timeline of the replayed world, the claim and why,
 * and a command that replays it.
 */
import { claimNamed, CLAIMS } from '../../model/claims/index.js';
import type { ClaimName } from '../../model/claims/types.js';
import { applyMove } from '../../model/verify/moves.js';
import { describeCommand, type WorldCommand } from '../../model/world/commands.js';
import { formatConfig, type WorldConfig } from '../../model/world/config.js';
import { formatTimeline } from '../../model/world/counterexample.js';
import { runWorld, type Subject } from '../../model/world/property.js';
import { createWorld } from '../../model/world/world.js';
import type { Break } from './partition.js';

/** A shortest counterexample found by the search. */
export interface VerifyCounterexample {
  claim: string;
  why: string;
  cfg: WorldConfig;
  /** Who runs: `model` or a client mutant's name. */
  client: string;
  /** The policy the server runs, when it differs from the declared `cfg.policy`. */
  runs?: string;
  subject: Subject;
  /** Moves from the root (the search's depth). */
  depth: number;
  commands: WorldCommand[];
}

/** The world commands of a path of moves from a world of `cfg`. */
export function commandsOfPath(
  cfg: WorldConfig,
  subject: Subject,
  moves: readonly number[],
): WorldCommand[] {
  const w = createWorld(cfg, subject);
  const spent = { disconnects: 0, otherEmits: 0 };
  const out: WorldCommand[] = [];
  for (const m of moves) {
    const c = applyMove(w, m, spent);
    if (c === null) throw new Error('a path of the search does not replay');
    const last = out[out.length - 1];
    if (c.kind === 'Advance' && last?.kind === 'Advance')
      out[out.length - 1] = { kind: 'Advance', ms: last.ms + c.ms };
    else out.push(c);
  }
  return out;
}

/** The counterexample of a search's break: its root configuration and its path's commands. */
export function counterexampleOfBreak(
  b: Break,
  configs: readonly WorldConfig[],
  client: string,
  subject: Subject,
): VerifyCounterexample {
  const cfg = configs[b.root]!;
  return {
    claim: b.claim,
    why: b.why,
    cfg,
    client,
    subject,
    depth: b.depth,
    commands: commandsOfPath(cfg, subject, b.moves),
  };
}

/** The commands as `--replay` reads them back. */
export function formatCommands(commands: readonly WorldCommand[]): string {
  return commands.map(describeCommand).join(',');
}

/** Parses `Emit,Advance(500),Disconnect(silent)`; throws an Error naming the bad command. */
export function parseCommands(text: string): WorldCommand[] {
  const out: WorldCommand[] = [];
  for (const raw of text.split(',')) {
    const t = raw.trim();
    if (t === '') continue;
    const adv = /^Advance\((\d+)\)$/.exec(t);
    if (adv) out.push({ kind: 'Advance', ms: Number(adv[1]) });
    else if (t === 'Emit') out.push({ kind: 'Emit', stream: 'tool' });
    else if (t === 'Emit(other)') out.push({ kind: 'Emit', stream: 'other' });
    else if (t === 'Disconnect') out.push({ kind: 'Disconnect', silent: false });
    else if (t === 'Disconnect(silent)') out.push({ kind: 'Disconnect', silent: true });
    else if (t === 'Restart(2026-07-28)') out.push({ kind: 'Restart', era: '2026-07-28' });
    else if (['Evict', 'Restart', 'SaturateApp', 'ReleaseApp', 'Drain', 'Reconnect'].includes(t))
      out.push({ kind: t } as WorldCommand);
    else throw new Error(`unknown command ${JSON.stringify(t)}`);
  }
  return out;
}

/** The shell command that replays a counterexample. */
export function verifyReplayCommand(cx: VerifyCounterexample): string {
  const parts = [
    'npx mcp-resumption verify',
    `--replay '${formatCommands(cx.commands)}'`,
    `--config ${formatConfig(cx.cfg)}`,
  ];
  if (cx.client !== 'model') parts.push(`--client ${cx.client}`);
  if (cx.runs !== undefined) parts.push(`--server ${cx.runs}`);
  return parts.join(' ');
}

/** The counterexample in words, as `explore` prints one, with the replay command. */
export function formatVerifyCounterexample(cx: VerifyCounterexample): string {
  const w = runWorld(cx.cfg, cx.commands, cx.subject, { record: true });
  const claim = claimNamed(cx.claim as ClaimName);
  const verdict = claim.check(w);
  return [
    `counterexample (${cx.commands.length} command(s), ${cx.depth} move(s) deep, shortest within the scope)`,
    ...(cx.client !== 'model' ? [`subject: ${cx.client}`] : []),
    ...(cx.runs !== undefined ? [`server runs: ${cx.runs} (declares ${cx.cfg.policy})`] : []),
    `config: ${formatConfig(cx.cfg)}`,
    `commands: ${cx.commands.map(describeCommand).join(', ') || '(none)'}`,
    'timeline:',
    ...formatTimeline(w, cx.commands),
    `claim broken: ${claim.name}: ${verdict.ok ? '(held on replay: the search and the world disagree!)' : verdict.why}`,
    `  (${claim.text})`,
    `replay: ${verifyReplayCommand(cx)}`,
  ].join('\n');
}

/** What `verify --replay` prints for one run, and how many claims it broke. */
export interface ReplayReport {
  text: string;
  broken: number;
}

/**
 * `verify --replay`: `commands` run in a world of `cfg` by `subject` (named `client`; `server`:
 * the policy the server really runs, when it differs from the declared one), its timeline and
 * every claim's verdict.
 */
export function formatReplay(
  cfg: WorldConfig,
  commands: readonly WorldCommand[],
  client: string,
  subject: Subject,
  server?: string,
): ReplayReport {
  const w = runWorld(cfg, commands, subject, { record: true });
  const lines = [
    `replay (${commands.length} command(s))${client !== 'model' ? `, subject: ${client}` : ''}${server ? `, server runs ${server}` : ''}`,
    `config: ${formatConfig(cfg)}`,
    `commands: ${commands.map(describeCommand).join(', ') || '(none)'}`,
    'timeline:',
    ...formatTimeline(w, commands),
  ];
  let broken = 0;
  for (const claim of CLAIMS) {
    const v = claim.check(w);
    if (!v.ok) broken++;
    lines.push(
      `${claim.name}: ${v.ok ? (v.applicable ? 'held' : `not applicable (${v.why})`) : `BROKEN: ${v.why}`}`,
    );
  }
  return { text: lines.join('\n'), broken };
}
