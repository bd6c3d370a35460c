/**
 * fast-check generators of worlds: configurations and command sequences. `valid` worlds are
 * built so that the conditions of validity can hold; `any` worlds range over everything,
 * faulty servers included; `promise` worlds are any worlds whose server declares `honest-reject`
 * and answers 404 after losing a session; `polling` worlds are valid worlds of a polling server
 * without a replay acknowledgment; `break:<condition>` worlds are valid except for that one
 * condition (EachConditionIsNecessary).
 */
import fc from 'fast-check';
import { applyCommand, describeCommand, type WorldCommand } from './commands.js';
import {
  FAULTY_POLICIES,
  isHonestPolicy,
  POLICIES,
  TASK_FAULTY_POLICIES,
  TASK_HONEST_POLICIES,
  A2A_ERAS,
  A2A_FAULTY_POLICIES,
  A2A_HONEST_POLICIES,
  type WorldConfig,
} from './config.js';
import type { ConditionName } from './validity.js';
import type { World } from './world.js';

/** Which worlds to generate. */
export type WorldKind =
  'valid' | 'any' | 'mixed' | 'promise' | 'polling' | 'caught-up' | `break:${ConditionName}`;

/** Every world kind (for `--help` texts and option checks). */
export const WORLD_KINDS: readonly WorldKind[] = [
  'valid',
  'any',
  'mixed',
  'promise',
  'polling',
  'caught-up',
  'break:cursorInWindow',
  'break:honestServer',
  'break:timeoutAboveKeepalive',
  'break:readDecoupled',
  'break:durableOr404',
  'break:cursorAtEveryReconnect',
  'break:proofWithinBudget',
];

/** A command of the world as a fast-check command (the model is unused: the world is real). */
export class WorldCmd implements fc.Command<object, World> {
  constructor(readonly cmd: WorldCommand) {}
  check(): boolean {
    return true;
  }
  run(_model: object, w: World): void {
    w.command++;
    applyCommand(w, this.cmd);
  }
  toString(): string {
    return describeCommand(this.cmd);
  }
}

const timing = fc.record({
  K: fc.constantFrom(1_000, 5_000, 15_000),
  extraT: fc.constantFrom(1, 2_000, 30_000, 75_000),
  B: fc.integer({ min: 1, max: 8 }),
  R: fc.constantFrom(100, 1_000, 5_000),
  P: fc.constantFrom(2_000, 10_000, 30_000),
  N: fc.integer({ min: 1, max: 25 }),
  keepalive: fc.constantFrom('shared' as const, 'independent' as const),
  durable: fc.boolean(),
  policy: fc.constantFrom('honest' as const, 'honest-reject' as const),
  ring: fc.option(fc.integer({ min: 2, max: 16 }), { nil: null, freq: 2 }),
  pace: fc.constantFrom(0, 100, 1_000, 5_000),
  // The polling server (0: never closes) and what it proves a resumed stream with.
  Q: fc.constantFrom(0, 0, 0, 30_000),
  // Rarer than the defaults: without an acknowledgment every drop while a reconnect is
  // unproven breaks proofWithinBudget, and without priming an early reconnect has no cursor.
  ack: fc.oneof({ weight: 13, arbitrary: fc.constant(true) }, fc.constant(false)),
  priming: fc.oneof(
    { weight: 20, arbitrary: fc.constant('open' as const) },
    { weight: 6, arbitrary: fc.constant('all' as const) },
    fc.constant('none' as const),
  ),
});

/** Valid configurations: D x I exceeds the longest back-off or idle wait, T > K, decoupled. */
export const validConfig: fc.Arbitrary<WorldConfig> = timing.map((t) => {
  const T = t.K + t.extraT;
  const I = t.ring === null ? t.pace : Math.floor(Math.max(t.R, T) / t.ring) + 1 + t.pace;
  return {
    D: t.ring,
    K: t.K,
    T,
    B: t.B,
    I,
    R: t.R,
    // The tool's silences after a reconnect (Advance up to 200 s, several in a row) must fit
    // in the proof budget, with or without an acknowledgment: a declared floor lets the client
    // wait for P, not longer (rule 7.1). Worlds that break this are `break:proofWithinBudget`.
    P: t.P * 60,
    N: t.N,
    keepalive: t.keepalive,
    read: 'decoupled',
    idleOn: 'bytes',
    durable: t.durable,
    onRestart: '404',
    policy: t.policy,
    Q: t.Q,
    ack: t.ack,
    priming: t.priming,
    // Without an acknowledgment the server polls (as a 2025-11-25 server with an event store
    // and retryInterval does).
    ...(t.ack ? {} : { Q: t.Q || 30_000 }),
  };
});

/** Any configuration, faulty servers and broken conditions included. */
export const anyConfig: fc.Arbitrary<WorldConfig> = fc.record({
  D: fc.option(fc.integer({ min: 1, max: 8 }), { nil: null, freq: 3 }),
  K: fc.constantFrom(1_000, 5_000, 15_000),
  T: fc.constantFrom(1_000, 4_000, 16_000, 90_000),
  B: fc.integer({ min: 1, max: 8 }),
  I: fc.constantFrom(0, 500, 2_000, 10_000),
  R: fc.constantFrom(100, 1_000, 5_000),
  P: fc.constantFrom(2_000, 10_000, 30_000),
  N: fc.integer({ min: 1, max: 25 }),
  keepalive: fc.constantFrom('shared' as const, 'independent' as const),
  read: fc.constantFrom('coupled' as const, 'decoupled' as const),
  idleOn: fc.constantFrom('bytes' as const, 'bytes' as const, 'events' as const),
  durable: fc.boolean(),
  onRestart: fc.constantFrom(
    '404' as const,
    'recreate' as const,
    'new-epoch' as const,
    'not-durable' as const,
  ),
  policy: fc.constantFrom(...POLICIES),
  Q: fc.constantFrom(0, 0, 0, 30_000),
  // Without an acknowledgment an evicted cursor ends each poll at once, and the client polls
  // every R ms until its budget P runs out: realistic, but hundreds of polls a world, so rarer.
  ack: fc.oneof({ weight: 7, arbitrary: fc.constant(true) }, fc.constant(false)),
  // Priming every resumed stream grows the log by one id per reconnect: with an idle timer
  // below the keepalive interval that is a new cursor every T ms (slow to memoize), so rarer.
  priming: fc.oneof(
    { weight: 5, arbitrary: fc.constant('open' as const) },
    { weight: 2, arbitrary: fc.constant('none' as const) },
    fc.constant('all' as const),
  ),
});

/** The configurations of a kind. */
export function configArb(kind: WorldKind): fc.Arbitrary<WorldConfig> {
  switch (kind) {
    case 'valid':
      return validConfig;
    case 'any':
      return anyConfig;
    case 'mixed':
      return fc.oneof(validConfig, anyConfig);
    case 'polling':
      // Valid worlds of a polling server without acknowledgment (MCP 2025-11-25 with an event
      // store and retryInterval): empty resumed streams end, and the client must poll.
      return validConfig.map((c) => ({
        ...c,
        ack: false,
        priming: 'open' as const,
        Q: c.Q || 5_000,
        P: Math.max(c.P, 60_000),
      }));
    case 'caught-up':
      // Valid worlds of a server that states its head with its acknowledgment
      // (docs/spec.md#caught-up), with a proof budget far below the tool's silences (Advance
      // goes up to 200 s, several in a row: minutes): P only has to outlast the delivery of
      // what is owed after a drop (one idle timeout and two back-offs), never the tool.
      return validConfig.map((c) => ({
        ...c,
        ack: true,
        head: true,
        Q: 0,
        P: c.T + 2 * c.R + 1,
      }));
    case 'promise':
      return anyConfig.map((c) => ({
        ...c,
        onRestart: '404' as const,
        policy: 'honest-reject' as const,
      }));
    case 'break:cursorInWindow':
      return validConfig.chain((c) =>
        fc
          .record({ D: fc.integer({ min: 1, max: 3 }), I: fc.constantFrom(0, 100, 1_000) })
          .map((r) => ({ ...c, ...r })),
      );
    case 'break:honestServer':
      return validConfig.chain((c) =>
        fc.constantFrom(...FAULTY_POLICIES).map((policy) => ({ ...c, policy })),
      );
    case 'break:timeoutAboveKeepalive':
      // T from K/2 to K: the misconfiguration as it happens (an idle timer set near the
      // keepalive interval), and shrinking moves toward K/2, not toward a timer of 1 ms that
      // reconnects a thousand times a second (with a newly primed cursor each time).
      return validConfig.chain((c) =>
        fc.integer({ min: c.K / 2, max: c.K }).map((T) => ({ ...c, T })),
      );
    case 'break:readDecoupled':
      return validConfig.chain((c) =>
        fc
          .constantFrom(
            { read: 'coupled' as const, idleOn: 'bytes' as const },
            { read: 'decoupled' as const, idleOn: 'events' as const },
            { read: 'coupled' as const, idleOn: 'events' as const },
          )
          .map((r) => ({ ...c, ...r })),
      );
    case 'break:durableOr404':
      return validConfig.map((c) => ({ ...c, durable: false, onRestart: 'recreate' as const }));
    case 'break:cursorAtEveryReconnect':
      return validConfig.map((c) => ({ ...c, priming: 'none' as const }));
    case 'break:proofWithinBudget':
      return validConfig.chain((c) =>
        fc
          .record({ P: fc.constantFrom(1_000, 2_000), Q: fc.constantFrom(0, 500) })
          .map((r) => ({ ...c, ...r, ack: false, priming: 'open' as const })),
      );
  }
}

const cmd = (c: WorldCommand): fc.Arbitrary<WorldCmd> => fc.constant(new WorldCmd(c));
const emit = cmd({ kind: 'Emit', stream: 'tool' });
const advance = fc
  .oneof(
    fc.integer({ min: 1, max: 3_000 }),
    fc.integer({ min: 3_000, max: 60_000 }),
    fc.integer({ min: 60_000, max: 200_000 }),
  )
  .map((ms) => new WorldCmd({ kind: 'Advance', ms }));
const faults = {
  evict: cmd({ kind: 'Evict' }),
  restart: cmd({ kind: 'Restart' }),
  // A restart, or one time in eight a rolling upgrade into the 2026-07-28 era (mixed eras): as
  // many restarts as before, so the other faults keep their share of a sequence. An upgrade
  // breaks durableOr404 for the rest of the world: one in four cost a third of the worlds in
  // which NoFalseAlarm and Delivery apply; one in eight costs about a sixth.
  restartOrUpgrade: fc.oneof(
    { weight: 7, arbitrary: cmd({ kind: 'Restart' }) },
    { weight: 1, arbitrary: cmd({ kind: 'Restart', era: '2026-07-28' }) },
  ),
  saturate: cmd({ kind: 'SaturateApp' }),
  release: cmd({ kind: 'ReleaseApp' }),
  drain: cmd({ kind: 'Drain' }),
  disconnect: fc.boolean().map((silent) => new WorldCmd({ kind: 'Disconnect', silent })),
  reconnect: cmd({ kind: 'Reconnect' }),
  other: cmd({ kind: 'Emit', stream: 'other' }),
};

/** The command arbitraries of a kind (repeats weigh a command up). */
function commandArbs(kind: WorldKind): fc.Arbitrary<WorldCmd>[] {
  const f = faults;
  const base = [emit, emit, emit, advance, advance, f.drain, f.saturate, f.release];
  const faultsOf = [f.disconnect, f.reconnect, f.restart, f.other];
  if (
    kind === 'valid' ||
    kind === 'polling' ||
    kind === 'caught-up' ||
    kind === 'break:timeoutAboveKeepalive' ||
    kind === 'break:honestServer'
  )
    return [...base, ...faultsOf];
  if (kind === 'break:readDecoupled') return [...base, f.saturate, ...faultsOf];
  if (kind === 'break:durableOr404') return [...base, ...faultsOf, f.restart];
  // A rolling upgrade into the 2026-07-28 era (mixed eras): among arbitrary faults only. Not in
  // `promise` worlds, whose server is the one that keeps its promise, nor where a single
  // condition is broken on purpose.
  if (kind === 'any' || kind === 'mixed')
    return [...base, f.disconnect, f.reconnect, f.restartOrUpgrade, f.other, f.evict];
  return [...base, ...faultsOf, f.evict];
}

/** Longest generated command sequence; with `size: 'max'` the average is about half (22). */
export const MAX_COMMANDS = 44;

/** Options of {@link commandsArb}. */
export interface CommandsOptions {
  maxCommands?: number;
  /** Replays a shrunk sequence (the `replayPath` of a report). */
  replayPath?: string;
}

/** Command sequences of a kind (long ones: `size: 'max'`). */
export function commandsArb(
  kind: WorldKind,
  options: CommandsOptions = {},
): fc.Arbitrary<Iterable<fc.Command<object, World>>> {
  return fc.commands(commandArbs(kind), {
    maxCommands: options.maxCommands ?? MAX_COMMANDS,
    size: 'max',
    ...(options.replayPath !== undefined ? { replayPath: options.replayPath } : {}),
  });
}

/**
 * The configurations of a kind in the task-stream world (`explore --binding mcp-tasks`): the
 * kind's deployments, each served by a task-stream receiver that keeps SEP-2694's contract
 * where the kind's server is honest, and by one that breaks it where it is not.
 */
export function taskConfigArb(kind: WorldKind): fc.Arbitrary<WorldConfig> {
  return configArb(kind).chain((c) =>
    fc
      .constantFrom(...(isHonestPolicy(c.policy) ? TASK_HONEST_POLICIES : TASK_FAULTY_POLICIES))
      .map((policy) => ({ ...c, policy })),
  );
}

/**
 * The configurations of a kind in the A2A world (`explore --binding a2a`): the kind's
 * deployments in every era, each served by an A2A server that keeps what its era promises where
 * the kind's server is honest, and by a faulty one where it is not. An A2A stream always starts
 * with the task (the client holds generation 1 from the start: a primed opening), and a server
 * that lost the task answers `TaskNotFoundError` (404), never a silent re-creation.
 */
export function a2aConfigArb(kind: WorldKind, clean?: ArbFilter): fc.Arbitrary<WorldConfig> {
  const arb: fc.Arbitrary<WorldConfig> = configArb(kind).chain((c) =>
    fc
      .record({
        policy: fc.constantFrom(
          ...(isHonestPolicy(c.policy) ? A2A_HONEST_POLICIES : A2A_FAULTY_POLICIES),
        ),
        era: fc.constantFrom(...A2A_ERAS),
      })
      .map(({ policy, era }) => {
        const { head: _head, ...rest } = c;
        const a2a: WorldConfig = { ...rest, policy, era, priming: 'open' };
        return a2a.onRestart === '404'
          ? a2a
          : ({ ...a2a, durable: false, onRestart: '404' } as WorldConfig);
      }),
  );
  return clean === undefined ? arb : arb.filter(clean);
}

/** A predicate on generated configurations (the kill table's A2A probes keep clean cells only). */
export type ArbFilter = (c: WorldConfig) => boolean;
