/**
 * The scopes of exhaustive checking: how many events a tool call emits, how deep the ring is,
 * how many restarts, disconnects, reconnects and other-stream events a world may have, and
 * which deployments (configurations) it starts from. A scope is small on purpose, the way a
 * TLC model is: within it every interleaving is visited.
 *
 * Times are abstracted (the search moves only to the next deadline), so only the order of
 * the timing constants matters, not their size: they are chosen so that a keepalive interval
 * K fits inside the idle timeout T (a valid deployment), or does not (T < K), a polling server
 * ends an idle resumed stream after Q, and a proof budget P spans a few polls of back-off R.
 */
import {
  A2A_ERAS,
  DEFAULT_CONFIG,
  isA2aPolicy,
  isHonestPolicy,
  isTaskPolicy,
  type A2aEra,
  type PolicyName,
  type WorldConfig,
} from '../world/config.js';

/** The scope names, smallest first. */
export const SCOPE_NAMES = ['small', 'medium', 'large'] as const;

/** A scope's name. */
export type ScopeName = (typeof SCOPE_NAMES)[number];

/** Bounds on what a world may do; the search never goes past them. */
export interface Bounds {
  /** Restarts of the server. */
  restarts: number;
  /** Network drops (noticed or silent). */
  disconnects: number;
  /** Reconnects of the client, however caused (commands, idle timer, back-off, polls). */
  reconnects: number;
  /** Events emitted on the other stream of the session. */
  otherEmits: number;
}

/** One scope: bounds and the deployments a world starts from. */
export interface Scope {
  name: ScopeName;
  /** Events per tool call (the last one is the result). */
  N: number;
  bounds: Bounds;
  /** Axes of deployment choices; the scope's configurations are their product. */
  axes: readonly (readonly Partial<WorldConfig>[])[];
}

/**
 * The base deployment every scope varies: valid (decoupled reader, idle timer on bytes,
 * T > K, durable store, primed opening, a declared floor), with a burst-capable tool (I = 0,
 * so same-tick replays can be reordered) and a one-frame socket (backpressure at once).
 */
export const BASE_CONFIG: WorldConfig = {
  ...DEFAULT_CONFIG,
  D: null,
  K: 1_000,
  T: 3_000,
  B: 1,
  I: 0,
  R: 500,
  P: 2_000,
  Q: 0,
  N: 2,
  keepalive: 'shared',
  read: 'decoupled',
  idleOn: 'bytes',
  durable: true,
  onRestart: '404',
  policy: 'honest',
  ack: true,
  priming: 'open',
};

// A store that survives a restart; one that loses the session and says 404; one that re-creates
// it silently (the seed's third variant).
const STORE = [
  { durable: true, onRestart: '404' },
  { durable: false, onRestart: '404' },
  { durable: false, onRestart: 'recreate' },
] as const;
const STORE_ALL = [
  ...STORE,
  { durable: false, onRestart: 'new-epoch' },
  { durable: false, onRestart: 'not-durable' },
] as const;
// A declared floor, or a polling server without one (MCP 2025-11-25): an empty resumed stream
// ends after Q and the client polls within its budget P.
const PROOF = [
  { ack: true, Q: 0 },
  { ack: false, Q: 500 },
] as const;
const RING = [{ D: null }, { D: 1 }] as const;
const HEAD = { head: true, P: 4_001 } as const;

/** The three scopes. */
export const SCOPES: Record<ScopeName, Scope> = {
  // Six deployments, each differing from the base in one way: enough to kill every mutant of
  // the zoo, small enough that `npm test` searches it for every policy in seconds.
  small: {
    name: 'small',
    N: 2,
    bounds: { restarts: 1, disconnects: 1, reconnects: 1, otherEmits: 1 },
    // The sixth: a server that states its head (docs/spec.md#caught-up), judged without
    // proofWithinBudget, with a budget that covers one idle timeout and two back-offs only.
    axes: [[{}, STORE[2], PROOF[1], { priming: 'none' }, RING[1], HEAD]],
  },
  medium: {
    name: 'medium',
    N: 2,
    bounds: { restarts: 1, disconnects: 1, reconnects: 2, otherEmits: 1 },
    axes: [
      STORE_ALL,
      PROOF,
      [{ priming: 'open' }, { priming: 'none' }, { priming: 'all' }],
      [{ T: 3_000 }, { T: 800 }],
    ],
  },
  large: {
    name: 'large',
    N: 2,
    // Medium's bounds over six times its deployments: a one-event ring (eviction at once), and
    // the reader and idle-timer variants that break the conditions of validity. A second
    // disconnect or the keepalive axis would multiply the states again (hours, several GB
    // with the frontier in memory).
    bounds: { restarts: 1, disconnects: 1, reconnects: 2, otherEmits: 1 },
    axes: [
      STORE_ALL,
      PROOF,
      [{ priming: 'open' }, { priming: 'none' }, { priming: 'all' }],
      RING,
      [{ T: 3_000 }, { T: 800 }],
      [{ read: 'decoupled' }, { read: 'coupled' }, { idleOn: 'events' }],
    ],
  },
};

/** The scope named `name`, or `undefined`. */
export function scopeNamed(name: string): Scope | undefined {
  return (SCOPE_NAMES as readonly string[]).includes(name) ? SCOPES[name as ScopeName] : undefined;
}

/**
 * Every configuration of `scope` whose server declares (and runs) `policy`, in axis order; in
 * the A2A world, only those of era `era` when one is given.
 */
export function scopeConfigs(scope: Scope, policy: PolicyName, era?: A2aEra): WorldConfig[] {
  const all = allScopeConfigs(scope, policy);
  return era === undefined ? all : all.filter((c) => c.era === era);
}

function allScopeConfigs(scope: Scope, policy: PolicyName): WorldConfig[] {
  let out: WorldConfig[] = [{ ...BASE_CONFIG, N: scope.N, policy }];
  for (const axis of scope.axes) out = out.flatMap((c) => axis.map((v) => ({ ...c, ...v })));
  // A task-stream receiver states no head (SEP-2694 has no such marker:
  // docs/spec.md#task-streams-no-caught-up-marker): the head deployment is the SSE world's.
  if (isTaskPolicy(policy)) return out.filter((c) => c.head !== true);
  if (isA2aPolicy(policy)) return a2aConfigs(out);
  return out;
}

/**
 * The A2A world's configurations of a scope: its deployments that mean something to an A2A
 * server, each in every era. An A2A stream always starts with the task (generation 1: the
 * client holds a cursor from the start), states no SSE head, and a server that lost the task
 * answers `TaskNotFoundError` (it re-creates no task silently): the unprimed, head and
 * re-creating deployments are the SSE world's; the in-memory store that answers 404 (the JS
 * SDK's `InMemoryTaskStore`: `TaskNotFoundError` after a restart) takes the re-creating one's
 * place.
 */
function a2aConfigs(out: WorldConfig[]): WorldConfig[] {
  const seen = new Set<string>();
  const kept: WorldConfig[] = [];
  for (const c of out) {
    const a: WorldConfig =
      c.onRestart === 'recreate' || c.onRestart === 'new-epoch' || c.onRestart === 'not-durable'
        ? { ...c, durable: false, onRestart: '404' }
        : c;
    if (a.head === true || a.priming !== 'open') continue;
    const key = JSON.stringify(a);
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push(a);
  }
  return A2A_ERAS.flatMap((era) => kept.map((c) => ({ ...c, era })));
}

/**
 * The configurations in which every configuration-level condition of validity holds (an
 * honest declared server, a decoupled reader with the idle timer on bytes, T > K, a durable
 * store or 404). The world-level conditions (cursor in window, proof within budget, no write
 * stall) are judged on each world by the claims themselves.
 */
export function isValidConfig(c: WorldConfig): boolean {
  return (
    isHonestPolicy(c.policy) &&
    c.read === 'decoupled' &&
    c.idleOn === 'bytes' &&
    c.T > c.K &&
    (c.durable || c.onRestart === '404')
  );
}
