/**
 * Claims as fast-check properties over generated worlds, with the statistics the `explore`
 * report prints (interleavings, steps, machine states and transitions visited).
 */
import fc from 'fast-check';
import type { Binding } from '../bindings/binding.js';
import type { A2aRules } from '../bindings/a2a.js';
import type { ClientMachine } from '../client-machine.js';
import {
  CLAIMS,
  firstBroken,
  type Claim,
  type ClaimOptions,
  type ClaimVerdict,
} from '../claims/index.js';
import type { ClientBehaviour } from './client.js';
import { clientState } from './client.js';
import { quiesce, type WorldCommand } from './commands.js';
import type { PolicyName, WorldConfig } from './config.js';
import {
  a2aConfigArb,
  commandsArb,
  configArb,
  taskConfigArb,
  WorldCmd,
  type WorldKind,
} from './arbitraries.js';
import { brokenConditions, type ConditionName } from './validity.js';
import { createWorld, type World } from './world.js';

/** What runs in the world: the model's client and the declared server, or a mutant of either. */
export interface Subject {
  machine?: ClientMachine;
  behaviour?: Partial<ClientBehaviour>;
  /** The policy the server really runs (its declared one stays `cfg.policy`). */
  policy?: PolicyName;
  /** The task-stream binding the client reads with (a binding mutant), in a task-stream world. */
  binding?: Binding;
  /**
   * In an A2A world: the rules of the `a2a` binding this client flips (a binding mutant), in
   * whatever era the world speaks.
   */
  a2aFlip?: Partial<A2aRules>;
}

/** Counters of an exploration. */
export interface ExploreStats {
  /** Worlds run (interleavings). */
  runs: number;
  /** Commands applied (interleaving steps), epilogues not counted. */
  steps: number;
  /** Observations fed to the client machine. */
  observations: number;
  /** Runs in which each claim applied, and in which it held. */
  applied: Record<string, number>;
  held: Record<string, number>;
  /** Machine states the client ended a command in. */
  states: Set<string>;
  /** Machine transitions taken (ids of `listTransitions`). */
  transitions: Set<string>;
  /**
   * Worlds with each server or client feature (`polling server`, `no acknowledgment`, `primed
   * resumes`, `unprimed opening`) and worlds in which the client polled (a reconnect went on
   * with the episode of the one before).
   */
  features: Record<string, number>;
}

/** Counts the features of a finished world into `stats`. */
function countFeatures(w: World, stats: ExploreStats): void {
  const f = stats.features;
  const add = (k: string, yes: boolean) => {
    if (yes) f[k] = (f[k] ?? 0) + 1;
  };
  add('polling server', w.cfg.Q > 0);
  add('no acknowledgment', !w.cfg.ack);
  add('primed resumes', w.cfg.priming === 'all');
  add('unprimed opening', w.cfg.priming === 'none');
  add(
    'client polled',
    w.truth.reconnects.some((r) => r.episodeStart < r.t),
  );
}

/** Empty counters. */
export function newStats(): ExploreStats {
  return {
    runs: 0,
    steps: 0,
    observations: 0,
    applied: {},
    held: {},
    states: new Set(),
    transitions: new Set(),
    features: {},
  };
}

/** A claim broke: the error a property throws, so fast-check shrinks and reports it. */
export class ClaimBroken extends Error {
  constructor(
    readonly claim: Claim,
    readonly verdict: ClaimVerdict,
  ) {
    super(`${claim.name} broke: ${verdict.why}`);
    this.name = 'ClaimBroken';
  }
}

/** Options of a world property. */
export interface WorldPropertyOptions {
  kind: WorldKind;
  claims?: readonly Claim[];
  subject?: Subject;
  /** A condition of validity the claims do not require (EachConditionIsNecessary). */
  ignore?: ConditionName;
  stats?: ExploreStats;
  /** Track machine transitions (slower). */
  coverage?: boolean;
  maxCommands?: number;
  replayPath?: string;
  /** Fixed configuration instead of a generated one. */
  config?: WorldConfig;
  /**
   * `mcp-tasks`: generated worlds are task-stream worlds (a task policy serves them); `a2a`: A2A
   * worlds (an A2A policy serves them, in every era).
   */
  binding?: string;
  /** Called every 1,000 worlds (progress lines). */
  onProgress?: (stats: ExploreStats) => void;
  /** In A2A worlds: only the configurations this keeps (the kill table's clean cells). */
  keepConfig?: (c: WorldConfig) => boolean;
}

/** Runs one world: the commands, then the epilogue. */
export function runWorld(
  cfg: WorldConfig,
  commands: readonly WorldCommand[],
  subject: Subject = {},
  extra: { record?: boolean; coverage?: Set<string>; stepEveryPoll?: boolean } = {},
): World {
  const w = createWorld(cfg, { ...subject, ...extra });
  for (const c of commands) new WorldCmd(c).run({}, w);
  quiesce(w);
  return w;
}

/** The world commands of a generated (possibly shrunk) fast-check command sequence. */
export function toWorldCommands(cmds: Iterable<unknown>): WorldCommand[] {
  const out: WorldCommand[] = [];
  for (const x of cmds) {
    let y: unknown = x;
    while (y !== null && typeof y === 'object' && !(y instanceof WorldCmd) && 'cmd' in y)
      y = (y as { cmd: unknown }).cmd;
    if (y instanceof WorldCmd) out.push(y.cmd);
  }
  return out;
}

/** The `replayPath` of a generated command sequence (from its printed form). */
export function replayPathOf(cmds: unknown): string | undefined {
  return /replayPath="([^"]*)"/.exec(String(cmds))?.[1];
}

/** Checks `claims` on a finished world, updating `stats`; throws {@link ClaimBroken}. */
export function judge(
  w: World,
  claims: readonly Claim[],
  ignore: ConditionName | undefined,
  stats: ExploreStats | undefined,
): void {
  if (stats) {
    stats.observations += w.client.observations;
    stats.states.add(clientState(w.client));
  }
  // The conditions of validity, computed once for the claims that read them (not per claim).
  // A plain object: an accessor that computed them on first read made every claim's check
  // slower than the computation it saved.
  const broken = brokenConditions(w, ignore);
  const options: ClaimOptions = ignore === undefined ? { broken } : { ignore, broken };
  for (const claim of claims) {
    const verdict = claim.check(w, options);
    if (stats && verdict.applicable) {
      stats.applied[claim.name] = (stats.applied[claim.name] ?? 0) + 1;
      if (verdict.ok) stats.held[claim.name] = (stats.held[claim.name] ?? 0) + 1;
    }
    if (!verdict.ok) throw new ClaimBroken(claim, verdict);
  }
}

/** The property "every claim holds in every generated world of this kind". */
export function worldProperty(
  options: WorldPropertyOptions,
): fc.IProperty<[WorldConfig, Iterable<fc.Command<object, World>>]> {
  const claims = options.claims ?? CLAIMS;
  const stats = options.stats;
  const cfgArb = options.config
    ? fc.constant(options.config)
    : options.binding === 'mcp-tasks'
      ? taskConfigArb(options.kind)
      : options.binding === 'a2a'
        ? a2aConfigArb(options.kind, options.keepConfig)
        : configArb(options.kind);
  const cmdArb = commandsArb(options.kind, {
    ...(options.maxCommands !== undefined ? { maxCommands: options.maxCommands } : {}),
    ...(options.replayPath !== undefined ? { replayPath: options.replayPath } : {}),
  });
  return fc.property(cfgArb, cmdArb, (cfg, cmds) => {
    const coverage = options.coverage && stats ? stats.transitions : undefined;
    const w = createWorld(cfg, { ...options.subject, ...(coverage ? { coverage } : {}) });
    fc.modelRun(() => ({ model: {}, real: w }), cmds);
    if (stats) {
      stats.runs++;
      stats.steps += w.command + 1;
      if (options.onProgress && stats.runs % 1_000 === 0) options.onProgress(stats);
    }
    quiesce(w);
    if (stats) countFeatures(w, stats);
    judge(w, claims, options.ignore, stats);
  });
}

/** The first claim broken in a finished world, if any (without throwing). */
export { firstBroken };
