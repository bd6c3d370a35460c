/**
 * The world's configuration: the seed's parameters (ring depth D, keepalive interval K, idle
 * timeout T, socket buffer B, ...) and the deployment choices the conditions of validity talk
 * about (read path, keepalive writer, session store, reconnect policy).
 */
import { FOUNDING_INCIDENT } from '../founding-incident.js';
import { A2A_ERAS, type A2aEra } from '../bindings/a2a.js';

/** How an SSE server answers a reconnect (model/world/policies.ts). */
export type SsePolicyName =
  | 'honest'
  | 'honest-reject'
  | 'head'
  | 'durable-restart-404'
  | 'restart-empty-200'
  | 'partial-from-floor'
  | 'reorder-same-tick'
  | 'other-stream'
  | 'evicted-as-known'
  | 'false-head'
  | 'head-no-replay';

/**
 * How a task-stream receiver (SEP-2694) answers a `tasks/stream` call with `after`
 * (model/world/task-policies.ts). A world whose server runs one speaks the `mcp-tasks`
 * binding: its client's input goes through the binding's translator.
 */
export type TaskPolicyName =
  'tasks-honest' | 'tasks-gone-410' | 'tasks-duplicates' | 'tasks-restarted-counter' | 'tasks-skip';

/**
 * How an A2A server answers `SubscribeToTask` (model/world/a2a-policies.ts). A world whose
 * server runs one speaks the `a2a` binding of its `era`: its client's input goes through that
 * binding's translator.
 */
export type A2aPolicyName =
  'a2a-sdk' | 'a2a-seam-duplicate' | 'a2a-client-message' | 'a2a-seam-loss' | 'a2a-zombie';

export { A2A_ERAS, type A2aEra } from '../bindings/a2a.js';

/** The era an A2A world speaks when its configuration names none. */
export const DEFAULT_A2A_ERA: A2aEra = 'dev-1.1';

/** How the server answers a reconnect: an SSE policy, a task-stream one, or an A2A one. */
export type PolicyName = SsePolicyName | TaskPolicyName | A2aPolicyName;

/** The two honest policies: both satisfy the seed's second condition of validity. */
export const HONEST_POLICIES: readonly PolicyName[] = ['honest', 'honest-reject'];

/** Every faulty policy, in the order. */
export const FAULTY_POLICIES: readonly PolicyName[] = [
  'head',
  'durable-restart-404',
  'restart-empty-200',
  'partial-from-floor',
  'reorder-same-tick',
  'other-stream',
  'evicted-as-known',
];

/** Every policy of the SSE world (the `mcp-sse` binding, the default). */
export const POLICIES: readonly PolicyName[] = [...HONEST_POLICIES, ...FAULTY_POLICIES];

/**
 * The faulty servers of a stated head (docs/spec.md#caught-up): one that states a head it does
 * not have (the cursor, while it holds more), and one that states its true head above the
 * cursor but replays nothing. They are searched in their own probes, not among every server of
 * `any` worlds: a head is trusted as a floor is, so the first, when its tool has nothing more to
 * send, keeps even a correct client waiting for the application's own request timeout (the
 * limit stated in docs/spec.md, "Limits").
 */
export const HEAD_FAULTY_POLICIES: readonly PolicyName[] = ['false-head', 'head-no-replay'];

/**
 * The task-stream receivers that keep SEP-2694's replay contract: retention with `events_gone`
 * (as a JSON-RPC error, or carried by HTTP 410), and duplicate replays, which the SEP allows.
 */
export const TASK_HONEST_POLICIES: readonly PolicyName[] = [
  'tasks-honest',
  'tasks-gone-410',
  'tasks-duplicates',
];

/** The task-stream receivers that break it: a counter restarted under the same task id, a skip. */
export const TASK_FAULTY_POLICIES: readonly PolicyName[] = [
  'tasks-restarted-counter',
  'tasks-skip',
];

/** Every policy of the task-stream world (the `mcp-tasks` binding). */
export const TASK_POLICIES: readonly PolicyName[] = [
  ...TASK_HONEST_POLICIES,
  ...TASK_FAULTY_POLICIES,
];

/** `true` for a policy of the task-stream world: its worlds speak the `mcp-tasks` binding. */
export function isTaskPolicy(p: PolicyName): boolean {
  return p.startsWith('tasks-');
}

/**
 * The A2A servers that keep what their era promises: the SDK's snapshot-then-tap with a store
 * that persists before the next request (no window), a slow snapshot read that sends an event
 * twice (a duplicate, which a client can drop), and client messages that advance `generation`
 * without a streamed event (ADR-002 allows them).
 */
export const A2A_HONEST_POLICIES: readonly PolicyName[] = [
  'a2a-sdk',
  'a2a-seam-duplicate',
  'a2a-client-message',
];

/**
 * The A2A servers that lose what they owe: an event in the publish-to-persist window at the
 * seam (in neither the snapshot nor the tap), and a restarted server whose store still holds
 * the task that nothing executes any more (a zombie).
 */
export const A2A_FAULTY_POLICIES: readonly PolicyName[] = ['a2a-seam-loss', 'a2a-zombie'];

/** Every policy of the A2A world (the `a2a` binding). */
export const A2A_POLICIES: readonly PolicyName[] = [...A2A_HONEST_POLICIES, ...A2A_FAULTY_POLICIES];

/** `true` for a policy of the A2A world: its worlds speak the `a2a` binding of their era. */
export function isA2aPolicy(p: PolicyName): boolean {
  return p.startsWith('a2a-');
}

/** `true` for a policy whose world reads its client's input through a binding's translator. */
export function isWirePolicy(p: PolicyName): boolean {
  return isTaskPolicy(p) || isA2aPolicy(p);
}

/** The binding a policy's world speaks: `mcp-sse`, `mcp-tasks` or `a2a`. */
export function bindingOfPolicy(p: PolicyName): 'mcp-sse' | 'mcp-tasks' | 'a2a' {
  return isTaskPolicy(p) ? 'mcp-tasks' : isA2aPolicy(p) ? 'a2a' : 'mcp-sse';
}

/** The era of an A2A world's configuration (its `era`, or the default). */
export function eraOf(c: WorldConfig): A2aEra {
  return c.era ?? DEFAULT_A2A_ERA;
}

/** The policies of a binding's world, by the binding's name. */
export function policiesOf(binding: string): readonly PolicyName[] {
  return binding === 'mcp-tasks' ? TASK_POLICIES : binding === 'a2a' ? A2A_POLICIES : POLICIES;
}

/** `true` for a policy that keeps its binding's replay contract (a condition of validity). */
export function isHonestPolicy(p: PolicyName): boolean {
  return (
    HONEST_POLICIES.includes(p) ||
    TASK_HONEST_POLICIES.includes(p) ||
    A2A_HONEST_POLICIES.includes(p)
  );
}

/** One world's parameters. Times are virtual milliseconds. */
export interface WorldConfig {
  /** Ring-buffer depth of the event log (`null`: unbounded). */
  D: number | null;
  /** Keepalive interval. */
  K: number;
  /** Client idle timeout. */
  T: number;
  /** Socket buffer capacity, in frames. */
  B: number;
  /** Minimum interval between two events of the tool (its pace; 0 allows same-tick bursts). */
  I: number;
  /** Client reconnect back-off after a disconnect or an ended stream. */
  R: number;
  /**
   * Client proof budget: how long an episode may go without proof (unproven, or delayed under a
   * declared floor), measured from the first reconnect of its episode (polls with the same cursor share it).
   */
  P: number;
  /**
   * The polling server (MCP 2025-11-25): it ends a resumed stream on which it has written
   * nothing for Q ms, and the client reconnects with the same cursor. 0: it never does.
   */
  Q: number;
  /** Events the tool emits; the last one is its result. */
  N: number;
  /** The keepalive loop shares the event writer (blocks behind a full socket) or not. */
  keepalive: 'shared' | 'independent';
  /** The client's socket-read path runs on the application thread or on its own. */
  read: 'coupled' | 'decoupled';
  /** The idle timer measures bytes arriving, or events processed by the application. */
  idleOn: 'bytes' | 'events';
  /** The session store survives a restart. */
  durable: boolean;
  /**
   * What a server that lost its session store answers to a reconnect: 404; or it re-creates
   * the session under the same id, silently (`recreate`), stating its new epoch (`new-epoch`),
   * or saying the session is not durable (`not-durable`).
   */
  onRestart: '404' | 'recreate' | 'new-epoch' | 'not-durable';
  /** How the server answers a reconnect for a session it knows. */
  policy: PolicyName;
  /** The honest server states its replay floor (the replay acknowledgment) in its answer. */
  ack: boolean;
  /**
   * With `ack`, the acknowledgment also states the server's head (docs/spec.md#caught-up): a
   * resume with nothing new is caught up, and no clock fails it. Optional: absent is `false`.
   */
  head?: boolean;
  /**
   * Priming events (MCP 2025-11-25: an id with empty data, stored like any event): `none`, the
   * opening stream gives the client no cursor until its first event; `open`, the opening stream
   * is primed (the client starts at cursor 0); `all`, every resumed stream is primed too, with
   * the next sequential id after the replay, so that a poll with nothing new still proves.
   */
  priming: 'none' | 'open' | 'all';
  /**
   * The A2A era an A2A world speaks (docs/world.md, "The A2A world"): `1.0` (no generation, no
   * cursor), `dev-1.1` (a `generation` on every event, no cursor on `SubscribeToTask`) or `1986`
   * (epic #1986 as proposed: a cursor with replay-or-gap). Optional: absent is `dev-1.1`;
   * ignored outside A2A worlds.
   */
  era?: A2aEra;
}

/** The seed's deployment: 64-event ring, 15 s keepalives, 90 s idle timer, coupled read path. */
export const SEED_CONFIG: WorldConfig = {
  D: FOUNDING_INCIDENT.ring,
  K: 15_000,
  T: 90_000,
  B: 8,
  I: 0,
  R: 1_000,
  P: 30_000,
  Q: 0,
  N: 200,
  keepalive: 'shared',
  read: 'coupled',
  idleOn: 'bytes',
  durable: false,
  onRestart: '404',
  policy: 'head',
  ack: true,
  priming: 'open',
};

/** A configuration under which every condition of validity can hold. */
export const DEFAULT_CONFIG: WorldConfig = {
  ...SEED_CONFIG,
  I: 2_000,
  N: 30,
  read: 'decoupled',
  durable: true,
  policy: 'honest',
};

/** The numeric fields of a configuration, in the order `formatConfig` writes them. */
export const NUMERIC_FIELDS = ['D', 'K', 'T', 'B', 'I', 'R', 'P', 'Q', 'N'] as const;
const NUMERIC = NUMERIC_FIELDS;

/** The choice fields of a configuration and their values (the `--config` grammar). */
export const CONFIG_CHOICES: Readonly<Record<string, readonly string[]>> = {
  keepalive: ['shared', 'independent'],
  read: ['coupled', 'decoupled'],
  idleOn: ['bytes', 'events'],
  durable: ['true', 'false'],
  onRestart: ['404', 'recreate', 'new-epoch', 'not-durable'],
  policy: [...POLICIES, ...HEAD_FAULTY_POLICIES, ...TASK_POLICIES, ...A2A_POLICIES],
  ack: ['true', 'false'],
  head: ['true', 'false'],
  priming: ['none', 'open', 'all'],
  era: [...A2A_ERAS],
};

/**
 * The choice fields a configuration may leave unset (absent is the default): `formatConfig`
 * writes them only when set, so a world string without them reads back the same.
 */
export const OPTIONAL_CHOICES: ReadonlySet<string> = new Set(['era']);

/**
 * Parses `D=64,K=15000,T=90000,B=8,policy=head` over `base`. `D=inf` is an unbounded ring.
 * Throws an Error naming the bad entry.
 */
export function parseConfig(text: string, base: WorldConfig = DEFAULT_CONFIG): WorldConfig {
  const out: WorldConfig = { ...base };
  for (const part of text.split(',')) {
    const entry = part.trim();
    if (entry === '') continue;
    const eq = entry.indexOf('=');
    if (eq <= 0) throw new Error(`config entry ${JSON.stringify(entry)} is not KEY=VALUE`);
    const key = entry.slice(0, eq).trim();
    const value = entry.slice(eq + 1).trim();
    if ((NUMERIC as readonly string[]).includes(key)) {
      if (key === 'D' && (value === 'inf' || value === 'null')) {
        out.D = null;
        continue;
      }
      if (!/^\d+$/.test(value)) throw new Error(`config ${key} must be a non-negative integer`);
      const n = Number(value);
      if ((key === 'B' || key === 'N' || key === 'D' || key === 'K' || key === 'T') && n === 0)
        throw new Error(`config ${key} must be positive`);
      (out as unknown as Record<string, number>)[key] = n;
      continue;
    }
    const choices = CONFIG_CHOICES[key];
    if (!choices) throw new Error(`unknown config key ${JSON.stringify(key)}`);
    if (!choices.includes(value))
      throw new Error(`config ${key} must be one of ${choices.join('|')}, got ${value}`);
    (out as unknown as Record<string, unknown>)[key] =
      key === 'durable' || key === 'ack' || key === 'head' ? value === 'true' : value;
  }
  return out;
}

/** The configuration as `parseConfig` reads it back. */
export function formatConfig(c: WorldConfig): string {
  return [
    `D=${c.D === null ? 'inf' : c.D}`,
    `K=${c.K}`,
    `T=${c.T}`,
    `B=${c.B}`,
    `I=${c.I}`,
    `R=${c.R}`,
    `P=${c.P}`,
    `Q=${c.Q}`,
    `N=${c.N}`,
    `keepalive=${c.keepalive}`,
    `read=${c.read}`,
    `idleOn=${c.idleOn}`,
    `durable=${c.durable}`,
    `onRestart=${c.onRestart}`,
    `policy=${c.policy}`,
    `ack=${c.ack}`,
    `priming=${c.priming}`,
    // (Written only when set: every world string from before stated heads reads back the same.)
    ...(c.head ? ['head=true'] : []),
    ...(c.era !== undefined ? [`era=${c.era}`] : []),
  ].join(',');
}

/**
 * What each configuration field means, in one line: the single source of the CLI's `--help`
 * legend and of the playground's labels and tooltips, so that neither can drift from the other.
 */
export const CONFIG_FIELD_HELP: Readonly<Record<keyof WorldConfig, string>> = {
  D: 'ring depth: events the server keeps for replay (inf: unbounded)',
  K: 'keepalive interval of the server, ms',
  T: "client's idle timeout: silence (ms) after which it reconnects",
  B: 'socket buffer, in frames, between server and client',
  I: "tool's pace: minimum ms between two events (0 allows same-ms bursts)",
  R: "client's reconnect back-off, ms",
  P: 'proof budget, ms: how long an episode may stay unproven before it fails',
  Q: 'polling server: ends a resumed stream idle for Q ms (0: never)',
  N: 'events the tool emits; the last one is its result',
  keepalive: 'keepalive writer: shared with events (waits behind a full socket) or independent',
  read: "client's socket read: coupled to the application thread or decoupled",
  idleOn: "what the client's idle timer measures: bytes arriving or events processed",
  durable: 'the session store survives a server restart',
  onRestart: 'answer for a session lost in a restart: 404, recreate, new-epoch, not-durable',
  policy: 'how the server answers a reconnect for a session it knows (honest, head, ...)',
  ack: 'the honest server states its replay floor (the replay acknowledgment)',
  head: 'with ack, it also states its head: a resume with nothing new is caught up',
  priming: 'which streams start with a priming event: none, open (the first), all',
  era: 'A2A worlds: the era spoken, 1.0, dev-1.1 (default) or 1986 (the proposal)',
};

/** Short labels for the configuration fields (the playground's form). */
export const CONFIG_FIELD_LABEL: Readonly<Record<keyof WorldConfig, string>> = {
  D: 'ring depth',
  K: 'keepalive every',
  T: 'idle timeout',
  B: 'socket buffer',
  I: 'tool pace',
  R: 'back-off',
  P: 'proof budget',
  Q: 'poll close after',
  N: 'events',
  keepalive: 'keepalive writer',
  read: 'read path',
  idleOn: 'idle timer on',
  durable: 'durable store',
  onRestart: 'on restart',
  policy: 'server policy',
  ack: 'replay ack',
  head: 'states its head',
  priming: 'priming',
  era: 'A2A era',
};

/** The `--help` legend of every configuration field (`K=V` in `--config` and world strings). */
export function configLegend(): string {
  const keys = Object.keys(CONFIG_FIELD_HELP) as (keyof WorldConfig)[];
  const width = Math.max(...keys.map((k) => k.length)) + 2;
  return [
    'Config fields (--config K=V,..., world strings, the playground; docs/world.md):',
    ...keys.map((k) => `  ${k.padEnd(width)}${CONFIG_FIELD_HELP[k]}`),
  ].join('\n');
}
