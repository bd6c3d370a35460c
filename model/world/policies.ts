/**
 * How the server answers a reconnect (`GET` with `Last-Event-ID`). The honest policies satisfy
 * the seed's second condition of validity: replay every event after the cursor before any new
 * one, or answer something the client can tell apart (a declared floor above the cursor, or a
 * distinct status). Each faulty policy differs from `honest` in one way only.
 */
import {
  isA2aPolicy,
  isTaskPolicy,
  type A2aPolicyName,
  type PolicyName,
  type SsePolicyName,
  type TaskPolicyName,
  type WorldConfig,
} from './config.js';
import { END, TOOL_STREAM, type EventFrame } from './frames.js';
import { floorOf, type ServerState } from './server.js';
import { answerTask } from './task-policies.js';
import { answerA2a } from './a2a-policies.js';
import { after, type Answer } from './answer.js';

export { after, type Answer } from './answer.js';

/** What the client asked for. */
export interface ReconnectRequest {
  /** The Last-Event-ID sent (`null`: none). */
  cursor: number | null;
  stream: string;
}

/** Status of a distinguishable rejection of an unreplayable cursor (`honest-reject`). */
export const UNREPLAYABLE_STATUS = 416;

/**
 * What a server of the 2026-07-28 era answers to any `GET` (Streamable HTTP: "a server that
 * speaks only 2026-07-28 SHOULD answer a GET with 405" and ignores `Last-Event-ID`).
 */
export const ERA_2026_STATUS = 405;

/** The head event of `log` when it is `head`, as a one-frame replay (the `head` policy). */
function headOf(log: readonly EventFrame[], head: number): EventFrame[] {
  const last = log[log.length - 1];
  return last !== undefined && last.id === head ? [last] : log.filter((e) => e.id === head);
}

/**
 * Replays every retained event after the cursor, then goes live; an evicted cursor gets its
 * floor and an ended stream. With `ack` (the replay acknowledgment) it states its floor.
 */
function honest(s: ServerState, c: number | null, cfg: WorldConfig): Answer {
  if (c === null) return { status: 200, epoch: s.epoch, frames: [], live: true };
  const floor = floorOf(s);
  // Built field by field (no spread of an optional part): this runs on every reconnect.
  const a: Answer =
    c + 1 < floor
      ? { status: 200, epoch: s.epoch, frames: [END], live: false }
      : { status: 200, epoch: s.epoch, frames: after(s.log, c), live: true };
  if (cfg.ack) {
    a.floor = floor;
    if (cfg.head) a.head = s.head;
  }
  return a;
}

const evicted = (s: ServerState, c: number | null): c is number => c !== null && c + 1 < floorOf(s);

/** Reverses each run of events emitted at the same virtual time. */
function reverseSameTick(events: EventFrame[]): EventFrame[] {
  const out: EventFrame[] = [];
  let i = 0;
  while (i < events.length) {
    let j = i;
    while (j + 1 < events.length && events[j + 1]!.emittedAt === events[i]!.emittedAt) j++;
    for (let k = j; k >= i; k--) out.push(events[k]!);
    i = j + 1;
  }
  return out;
}

type KnownSession = (s: ServerState, c: number | null, cfg: WorldConfig) => Answer;

/**
 * The two faulty servers of a stated head. `false-head` states a head it does not have: the
 * cursor (caught up), with a floor that covers it, replays nothing and goes live, so when it
 * holds more its next event is a skip. `head-no-replay` states its true head and floor, but
 * replays nothing and goes live: the events after the cursor are owed and never come.
 */
function statedHead(s: ServerState, c: number | null, cfg: WorldConfig, head: number): Answer {
  const a = honest(s, c, cfg);
  if (c === null || !a.live) return a;
  return {
    status: 200,
    epoch: s.epoch,
    floor: Math.min(floorOf(s), c + 1),
    head,
    frames: [],
    live: true,
  };
}

const KNOWN: Record<SsePolicyName, KnownSession> = {
  honest,
  'honest-reject': (s, c, cfg) =>
    evicted(s, c) ? { status: UNREPLAYABLE_STATUS, frames: [], live: false } : honest(s, c, cfg),
  // The seed's first variant: 200, no floor, stream from the head.
  head: (s, c) => ({
    status: 200,
    frames: c === null || s.head > c ? headOf(s.log, s.head) : [],
    live: true,
  }),
  'durable-restart-404': honest,
  'restart-empty-200': honest,
  'partial-from-floor': (s, c, cfg) =>
    evicted(s, c) ? { status: 200, frames: [...s.log], live: true } : honest(s, c, cfg),
  'reorder-same-tick': (s, c, cfg) => {
    const a = honest(s, c, cfg);
    return a.live ? { ...a, frames: reverseSameTick(a.frames as EventFrame[]) } : a;
  },
  'other-stream': (s, c, cfg) => {
    const a = honest(s, c, cfg);
    const foreign = c === null ? [] : after(s.otherLog, c);
    return foreign.length === 0 ? a : { ...a, frames: [...foreign, ...a.frames] };
  },
  'evicted-as-known': (s, c, cfg) =>
    evicted(s, c)
      ? { status: 200, floor: c + 1, epoch: s.epoch, frames: [...s.log], live: true }
      : honest(s, c, cfg),
  'false-head': (s, c, cfg) => statedHead(s, c, cfg, c ?? s.head),
  'head-no-replay': (s, c, cfg) => statedHead(s, c, cfg, s.head),
};

/**
 * The answer of a server running `policy` to `req`. A lost session answers 404, unless the
 * server re-creates it (`onRestart` other than 404, or the `restart-empty-200` policy): then 200
 * and an empty stream under the same session id; silently (`recreate`, the seed's third
 * variant), or saying so with its new epoch (`new-epoch`) or `durable: false` (`not-durable`).
 * `durable-restart-404` answers 404 after any restart, durable or not (a faulty server; the
 * seed's scenario `restart-404`, an in-memory store that restarts, is the correct 404). A server that restarted into the
 * 2026-07-28 era answers 405 to everything, whatever its policy.
 */
export function answerReconnect(
  s: ServerState,
  cfg: WorldConfig,
  policy: PolicyName,
  req: ReconnectRequest,
): Answer {
  if (s.upgraded) return { status: ERA_2026_STATUS, frames: [], live: false };
  if (req.stream !== TOOL_STREAM) return { status: 404, frames: [], live: false };
  if (policy === 'durable-restart-404' && s.restarted)
    return { status: 404, frames: [], live: false };
  if (!s.sessionKnown || s.recreated) {
    if (s.recreated || cfg.onRestart !== '404' || policy === 'restart-empty-200') {
      s.recreated = true;
      const a: Answer = { status: 200, frames: [], live: true };
      if (policy !== 'restart-empty-200' && cfg.onRestart === 'new-epoch') a.epoch = s.epoch;
      if (policy !== 'restart-empty-200' && cfg.onRestart === 'not-durable') a.durable = false;
      return a;
    }
    return { status: 404, frames: [], live: false };
  }
  if (isTaskPolicy(policy)) return answerTask(s, policy as TaskPolicyName, req.cursor);
  if (isA2aPolicy(policy)) return answerA2a(s, cfg, policy as A2aPolicyName, req.cursor);
  return KNOWN[policy as SsePolicyName](s, req.cursor, cfg);
}
