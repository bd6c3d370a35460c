/**
 * The simulated world: a server, a network and a client around the client machine, on an
 * injected virtual clock. Plain objects and functions, no actors and no real timers, so that a
 * property run costs microseconds. Ground truth is written here and read only by the claims.
 */
import { clientMachine, type ClientMachine } from '../client-machine.js';
import { describeObservation } from '../describe.js';
import { mcpTasks } from '../bindings/mcp-tasks.js';
import type { Binding } from '../bindings/binding.js';
import type { Observation } from '../observations.js';
import type { ClientSnapshot } from '../run.js';
import {
  canRead,
  clientState,
  idleDeadline,
  idleTimeout,
  newClient,
  noticeDisconnect,
  proofTimeout,
  readFrame,
  reconnect,
  requestTimeout,
  runApp,
  type ClientBehaviour,
  type ClientPort,
} from './client.js';
import { newClock } from './clock.js';
import { eraOf, isA2aPolicy, isTaskPolicy, type PolicyName, type WorldConfig } from './config.js';
import { ClientWire, type AnsweredResponse } from './task-wire.js';
import { a2aWriter } from './a2a-wire.js';
import { generationOf } from './a2a-numbers.js';
import { a2aBinding, a2aOfEra, a2aRules, type A2aRules } from '../bindings/a2a.js';
import { END, KEEPALIVE, TOOL_STREAM, type Frame } from './frames.js';
import { newTruth } from './ground-truth.js';
import { stepCache, type StepCache } from './machine-cache.js';
import { answerReconnect } from './policies.js';
import { skipQuietPolls } from './quiet-polls.js';
import { dropConnection, floorOf, newServer, openConnection, prime } from './server.js';
import type { Actor, TimelineTag } from './timeline.js';
import type { World } from './world-state.js';

export type { NetworkState, World } from './world-state.js';

/** What a world is built from besides its configuration. */
export interface WorldOptions {
  /** The client machine (the model's, or a mutant's). */
  machine?: ClientMachine;
  /** Client behaviour overrides (mutants). */
  behaviour?: Partial<ClientBehaviour>;
  /** The policy the server really runs (server mutants); `cfg.policy` is what it declares. */
  policy?: PolicyName;
  /**
   * The binding the client reads its input with, when `cfg.policy` is a task or an A2A policy
   * (a binding mutant; by default `mcp-tasks`, or the `a2a` binding of the world's era). Ignored
   * in the SSE world.
   */
  binding?: Binding;
  /** In an A2A world: the rules of its era's `a2a` binding that the client flips (a mutant). */
  a2aFlip?: Partial<A2aRules>;
  /** Record a timeline. */
  record?: boolean;
  /** Record the ids of the machine transitions taken. */
  coverage?: Set<string>;
  /** Step every poll of a quiet run instead of jumping over it (equivalence tests). */
  stepEveryPoll?: boolean;
}

/**
 * Appends a timeline entry (when recording). Callers whose text interpolates numbers check
 * `w.timeline` first: without a timeline such text was built on every emit and every advance
 * of every world, only to be dropped here.
 */
export function note(w: World, actor: Actor, action: string, tag: TimelineTag): void {
  if (w.timeline === null) return;
  w.timeline.push({
    t: w.clock.now,
    actor,
    action,
    tag,
    state: clientState(w.client),
    // An A2A world's machine counts generations: its cursor column is the machine's throughout.
    cursor: isA2aPolicy(w.cfg.policy) ? (w.client.snap.context.cursor ?? 0) : w.client.cursor,
    command: w.command,
  });
}

/** The generation of the world's event `id` in an A2A world (`null`: the world is not one). */
export function generationIn(w: World, id: number): number | null {
  return isA2aPolicy(w.cfg.policy) ? generationOf(w.policy, id) : null;
}

/** The answer to an A2A resubscribe in words: its first frame, or its error (A2A worlds). */
function a2aAnswerWords(
  w: World,
  a: { facts?: readonly unknown[]; frames: readonly Frame[] },
): string {
  const gen = (id: number) => generationOf(w.policy, id);
  const first = (a.facts?.[0] ?? {}) as {
    type?: string;
    data?: { result?: { task?: { generation?: number; executing?: boolean } } };
    error?: { code?: number; data?: { earliestGeneration?: number } };
  };
  const task = first.data?.result?.task;
  const said =
    first.type === 'a2a/error'
      ? `error ${first.error?.code ?? ''}${first.error?.data?.earliestGeneration !== undefined ? ` (earliest generation ${first.error.data.earliestGeneration})` : ''}`
      : task !== undefined
        ? `a Task snapshot${task.generation !== undefined ? ` of generation ${task.generation}` : ' (no generation)'}${task.executing === false ? ', not executing' : ''}`
        : 'nothing';
  const frames = a.frames.map((f) => (f.k === 'event' ? `${gen(f.id)}` : f.k));
  return `${said}${frames.length ? `, then ${frames.join(' ')}` : ''}`;
}

function closeConnection(w: World): void {
  w.net.up = false;
  w.net.socket = [];
  dropConnection(w.server);
}

function serveReconnect(w: World, cursor: number | null): AnsweredResponse {
  const s = w.server;
  const now = w.clock.now;
  const sessionAlive = s.sessionKnown && !s.recreated;
  const answer = answerReconnect(s, w.cfg, w.policy, { cursor, stream: TOOL_STREAM });
  // A server that keeps no events replays nothing, whatever its log holds (A2A's snapshot-then-tap).
  const floor = answer.replayFloor ?? floorOf(s);
  const retained = cursor === null || cursor + 1 >= floor;
  // A session alive before the answer is not re-created by it: only a lost one is.
  const primed = w.cfg.priming === 'all' && answer.live && cursor !== null && sessionAlive;
  if (primed) answer.frames = [...answer.frames, prime(s, w.cfg, now, w.truth)];
  w.truth.reconnects.push({
    t: now,
    cursor,
    floor,
    head: s.head,
    sessionAlive,
    retained,
    status: answer.status,
    declaredFloor: answer.floor ?? null,
    declaredHead: answer.head ?? null,
    primed,
    episodeStart: w.client.episodeStart ?? now,
  });
  if (cursor !== null && sessionAlive && cursor < s.head) {
    const outage = now - (w.truth.emittedAt[cursor + 1] ?? now);
    if (outage > w.truth.longestOutage) w.truth.longestOutage = outage;
  }
  if (w.timeline !== null) {
    const ids = answer.frames.map((f) =>
      f.k === 'event'
        ? `${f.stream === TOOL_STREAM ? '' : f.stream + ':'}${f.id}${f.priming ? '(priming)' : ''}`
        : f.k,
    );
    note(
      w,
      'server',
      isA2aPolicy(w.cfg.policy)
        ? `answers ${answer.status === 200 ? '' : 'with '}${a2aAnswerWords(w, answer)} (task at generation ${generationOf(w.policy, s.head)}${sessionAlive ? '' : ', task lost'})`
        : `answers ${answer.status}${answer.floor !== undefined ? ` floor=${answer.floor}` : ''}${answer.head !== undefined ? ` head=${answer.head}` : ''} (${floor > s.head ? `holds nothing, head ${s.head}` : `holds ${floor}..${s.head}`}${sessionAlive ? '' : ', session lost'})${ids.length ? `, replays ${ids.join(' ')}` : ''}`,
      {
        k: 'answer',
        status: answer.status,
        floor: answer.floor ?? null,
        holds: floor > s.head ? null : [floor, s.head],
        head: s.head,
        sessionLost: !sessionAlive,
        replays: ids,
      },
    );
  }
  w.net.socket = [];
  w.net.up = answer.status === 200;
  if (w.net.up) {
    openConnection(s, w.cfg, now, answer.frames, answer.live);
    // The polling server ends a resumed stream it has written nothing on for Q ms.
    if (answer.live && w.cfg.Q > 0) s.closeAt = now + w.cfg.Q;
  } else dropConnection(s);
  const r: AnsweredResponse = { type: 'RESPONSE', status: answer.status };
  if (answer.facts !== undefined) r.facts = answer.facts;
  if (answer.floor !== undefined) r.floor = answer.floor;
  if (answer.head !== undefined) r.head = answer.head;
  if (answer.epoch !== undefined) r.epoch = answer.epoch;
  if (answer.durable !== undefined) r.durable = answer.durable;
  return r;
}

function portOf(w: World, cache: StepCache): ClientPort {
  return {
    now: () => w.clock.now,
    reconnecting: (cursor) => {
      // A2A 1.0 has no cursor anywhere: every resubscribe goes without one (rule 0).
      if (cursor === null || (isA2aPolicy(w.cfg.policy) && eraOf(w.cfg) === '1.0'))
        w.truth.cursorlessReconnects++;
    },
    reconnect: (cursor) => serveReconnect(w, cursor),
    close: () => closeConnection(w),
    observed: (o: Observation, before: ClientSnapshot, after: ClientSnapshot) => {
      if (w.coverage !== null) {
        const id = cache.fired(before, o);
        if (id !== null) w.coverage.add(id);
      }
      // Every observation is on the timeline, keepalives included: a keepalive that changes the
      // machine's state (a mutant that takes it for proof) is what a reader must see. Quiet ones
      // fold in --brief timelines (timeline-fold.ts).
      if (w.timeline !== null) {
        w.timeline.push({
          t: w.clock.now,
          actor: 'client',
          action: `machine <- ${describeObservation(o)}`,
          tag: { k: 'observe', obs: o, from: before.value as never },
          state: after.value as never,
          cursor: after.context.cursor ?? 0,
          command: w.command,
        });
      }
    },
  };
}

/** A world at time 0: the tool call's stream is open and nothing has been emitted. */
export function createWorld(cfg: WorldConfig, options: WorldOptions = {}): World {
  const server = newServer();
  const truth = newTruth(server.epoch);
  const w = {
    cfg,
    clock: newClock(),
    server,
    net: { up: true, socket: [] },
    truth,
    policy: options.policy ?? cfg.policy,
    timeline: options.record ? [] : null,
    coverage: options.coverage ?? null,
    pollMark: null,
    skipPolls: !options.stepEveryPoll,
    command: -1,
  } as unknown as World;
  const cache = stepCache(options.machine ?? clientMachine);
  w.port = portOf(w, cache);
  openConnection(server, cfg, 0, [], true);
  const behaviour: ClientBehaviour = {
    idleOn: cfg.idleOn,
    dropsCursorAfterEmptyResume: false,
    ...options.behaviour,
  };
  const wire = isTaskPolicy(cfg.policy)
    ? ClientWire.of(options.binding ?? mcpTasks)
    : isA2aPolicy(cfg.policy)
      ? ClientWire.of(
          options.binding ??
            (options.a2aFlip === undefined
              ? a2aOfEra(eraOf(cfg))
              : a2aBinding({ ...a2aRules(eraOf(cfg)), ...options.a2aFlip, era: eraOf(cfg) })),
          a2aWriter(w.policy, eraOf(cfg), cfg.N),
        )
      : null;
  w.client = newClient(cache, behaviour, server.epoch, w.port, cfg.priming !== 'none', wire);
  return w;
}

/** The writer moves frames into the socket until it is full (backpressure). */
function flush(w: World): boolean {
  const s = w.server;
  if (!s.connected || !w.net.up) return false;
  let moved = false;
  const now = w.clock.now;
  while (s.out.length > 0 && w.net.socket.length < w.cfg.B) {
    const q = s.out.shift()!;
    const stall = now - q.queuedAt;
    if (stall > w.truth.longestWriteStall) w.truth.longestWriteStall = stall;
    if (q.frame === KEEPALIVE) s.keepaliveBlocked = false;
    w.net.socket.push(q.frame);
    moved = true;
  }
  return moved;
}

/** Frames flow as far as they can: writer to socket, socket to reader, reader to the app. */
export function pump(w: World, read: boolean): void {
  const c = w.client;
  for (let guard = 0; guard < 100_000; guard++) {
    flush(w);
    if (!read || !canRead(c, w.cfg) || w.net.socket.length === 0) break;
    const frames = w.net.socket;
    w.net.socket = [];
    for (const f of frames) {
      if (!c.connected || c.done !== null) break;
      readFrame(c, f, w.cfg, w.port);
    }
  }
  runApp(c, w.clock.now);
}

function keepaliveTick(w: World): void {
  const s = w.server;
  s.nextKeepaliveAt += w.cfg.K;
  if (!s.connected || !w.net.up) return;
  if (w.cfg.keepalive === 'independent') {
    // Unread keepalive bytes coalesce: reading two at once is reading one.
    if (w.net.socket[w.net.socket.length - 1] !== KEEPALIVE) w.net.socket.push(KEEPALIVE);
    return;
  }
  if (s.keepaliveBlocked) {
    note(w, 'server', 'keepalive loop still blocked on write (socket full)', {
      k: 'keepalive-blocked',
    });
    return;
  }
  s.keepaliveBlocked = true;
  s.out.push({ frame: KEEPALIVE, queuedAt: w.clock.now });
}

/** The polling server ends the idle resumed stream: an END after what it has queued. */
function closeIdleStream(w: World): void {
  const s = w.server;
  s.closeAt = Infinity;
  s.live = false;
  s.out.push({ frame: END, queuedAt: w.clock.now });
  if (w.timeline !== null)
    note(w, 'server', `ends the resumed stream: nothing written for ${w.cfg.Q} ms (polling)`, {
      k: 'end-stream',
    });
  pump(w, true);
}

const KEEPALIVE_OBSERVATION = { type: 'KEEPALIVE' } as const;

/**
 * On a quiet line (nothing queued, nothing unread, the reader free, and a keepalive leaves the
 * machine where it is) the keepalive ticks before the next other deadline are all alike: they
 * are jumped over in one step, with the same effect (the last one's bytes reset the idle timer).
 */
function skipQuietKeepalives(w: World, end: number): void {
  const s = w.server;
  const c = w.client;
  const K = w.cfg.K;
  if (w.timeline !== null || !s.connected || !w.net.up || c.done !== null) return;
  if (s.out.length > 0 || w.net.socket.length > 0 || !canRead(c, w.cfg)) return;
  if (c.cache.next(c.entry, KEEPALIVE_OBSERVATION) !== c.entry) return;
  const idle = idleDeadline(c, w.cfg);
  const idleLimit = c.behaviour.idleOn === 'bytes' && w.cfg.T > K ? Infinity : idle;
  const limit = Math.min(
    end,
    c.proofAt ?? Infinity,
    c.reconnectAt ?? Infinity,
    idleLimit,
    s.closeAt,
  );
  const m = Math.floor((limit - s.nextKeepaliveAt) / K);
  if (!(m >= 1) || !Number.isFinite(m)) return;
  const last = s.nextKeepaliveAt + (m - 1) * K;
  w.clock.now = last;
  c.lastByteAt = last;
  c.observations += m;
  s.nextKeepaliveAt = last + K;
}

/**
 * How many timer firings in a row may leave the clock where it is before an `advance` gives up
 * and jumps to its end: a guard against a timer that keeps coming due without moving time (a
 * bug), never a bound on how much a world does. A bound on all firings cut long worlds short
 * (a client polling every 100 ms through a 30-minute proof budget fires 18,000 times), and cut
 * them at different moments with and without the jumps over quiet keepalives and quiet polls,
 * so that a recorded world (which steps every one, to show it) could end otherwise than the
 * same world explored.
 */
const SAME_INSTANT_LIMIT = 1_000;

/**
 * The timer firings one `advance` may run at all, recorded or not. Generated worlds stay far
 * below it: the most seen in 3,000 worlds of each kind, recorded, was 14,447, and the
 * arbitraries bound it near 23,000 (polls every R >= 100 ms, keepalives every K >= 1 s, idle
 * timers every T >= 0.5 s, through at most 1,800 s). A configuration or an Advance given by
 * hand can ask for more (keepalives every 1 ms, a back-off of 1 ms through a budget of days),
 * and gets an error that says so rather than a world cut short, a run that never ends, or a
 * recorded timeline that fills the memory (a recorded world keeps a line for every firing).
 */
export const FIRING_LIMIT = 200_000;

/** Lets `ms` of virtual time pass: keepalives, reading, and the client's timers. */
export function advance(w: World, ms: number): void {
  const end = w.clock.now + ms;
  const c = w.client;
  for (let stuck = 0, firings = 0; ; firings++) {
    if (firings > FIRING_LIMIT)
      throw new Error(
        `the world fired more than ${FIRING_LIMIT.toLocaleString('en-US')} timers in one advance of ${ms} ms (K=${w.cfg.K}, R=${w.cfg.R}, P=${w.cfg.P}): choose a larger K or R, a shorter P, or a shorter Advance`,
      );
    pump(w, true);
    const ka = w.server.connected ? w.server.nextKeepaliveAt : Infinity;
    const idle = idleDeadline(c, w.cfg);
    const proof = c.proofAt ?? Infinity;
    const rec = c.done === null ? (c.reconnectAt ?? Infinity) : Infinity;
    const close = w.server.connected ? w.server.closeAt : Infinity;
    const req = c.requestTimeoutAt ?? Infinity;
    const next = Math.min(ka, idle, proof, rec, close, req);
    if (next > end || stuck > SAME_INSTANT_LIMIT) {
      w.clock.now = end;
      return;
    }
    if (next > w.clock.now) {
      w.clock.now = next;
      stuck = 0;
    } else stuck++;
    if (close <= w.clock.now) closeIdleStream(w);
    if (ka <= w.clock.now) {
      keepaliveTick(w);
      pump(w, true);
      skipQuietKeepalives(w, end);
    }
    if (idleDeadline(c, w.cfg) <= w.clock.now) {
      const up = w.net.up && w.server.connected && w.server.sessionKnown && !w.server.recreated;
      w.truth.idle.push({ t: w.clock.now, connectionUp: up });
      if (w.timeline !== null)
        note(w, 'client', `idle timer fired (${w.cfg.T} ms without ${c.behaviour.idleOn})`, {
          k: 'idle',
        });
      idleTimeout(c, w.cfg, w.port);
    }
    if (c.proofAt !== null && c.proofAt <= w.clock.now) proofTimeout(c, w.port);
    if (c.done === null && c.reconnectAt !== null && c.reconnectAt <= w.clock.now) {
      if (w.skipPolls) skipQuietPolls(w, end);
      note(w, 'client', 'reconnect back-off elapsed', { k: 'backoff' });
      reconnect(c, w.cfg, w.port);
    }
    if (c.requestTimeoutAt !== null && c.requestTimeoutAt <= w.clock.now) {
      note(w, 'client', 'request timer fired: call rejects (Request timed out)', {
        k: 'request-timeout',
      });
      requestTimeout(c, w.clock.now);
    }
  }
}

/** The network drops the connection; the client notices unless the drop is silent. */
export function disconnectNetwork(w: World, silent: boolean): void {
  if (!w.net.up) return;
  w.truth.drops.push(w.clock.now);
  if (!silent) w.truth.noticedDrops.push(w.clock.now);
  closeConnection(w);
  if (!silent) noticeDisconnect(w.client, w.cfg, w.port);
}
