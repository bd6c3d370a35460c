/**
 * The server: a tool invocation that emits numbered events into a per-stream log with
 * contiguous ids, retention as a ring buffer of depth D, a session store that survives a
 * restart or not, a writer that feeds the current connection, and a keepalive loop.
 *
 * The server knows nothing of the client's cursor except what a reconnect request carries.
 */
import type { WorldConfig } from './config.js';
import { OTHER_STREAM, TOOL_STREAM, type EventFrame, type QueuedFrame } from './frames.js';
import type { GroundTruth } from './ground-truth.js';

/** The server's state. */
export interface ServerState {
  /** The session epoch: changes when the session store is lost. */
  epoch: string;
  epochNo: number;
  /** The server still knows the session (false after a restart without a durable store). */
  sessionKnown: boolean;
  /** The session was implicitly re-created under the same id after it was lost. */
  recreated: boolean;
  /** At least one restart happened. */
  restarted: boolean;
  /**
   * The server restarted as a 2026-07-28 server (a rolling upgrade): no sessions, no resumable
   * streams; every `GET` is answered 405 and `Last-Event-ID` is ignored.
   */
  upgraded: boolean;
  /** The tool is still running (a restart without a durable store kills it). */
  toolAlive: boolean;
  /** Retained events of the tool's stream, ids floor..head, oldest first. */
  log: EventFrame[];
  /** Id of the latest event of the tool's stream, priming events included (0: none yet). */
  head: number;
  /** Tool events emitted so far (the N-th is the result). */
  toolEvents: number;
  /** Retained events of the other stream. */
  otherLog: EventFrame[];
  lastEmitAt: number;
  /** A connection to the client is open. */
  connected: boolean;
  /** New tool events are written on the open connection. */
  live: boolean;
  /** Frames the writer has not yet got into the socket (blocked writes). */
  out: QueuedFrame[];
  /** A shared-writer keepalive is waiting in `out` (the keepalive loop is blocked on it). */
  keepaliveBlocked: boolean;
  nextKeepaliveAt: number;
  /** When a polling server ends the open resumed stream unless it writes first (`Infinity`: never). */
  closeAt: number;
}

/** A server whose tool has just started, under epoch `e1`. */
export function newServer(): ServerState {
  return {
    epoch: 'e1',
    epochNo: 1,
    sessionKnown: true,
    recreated: false,
    restarted: false,
    upgraded: false,
    toolAlive: true,
    log: [],
    head: 0,
    toolEvents: 0,
    otherLog: [],
    lastEmitAt: -Infinity,
    connected: false,
    live: false,
    out: [],
    keepaliveBlocked: false,
    nextKeepaliveAt: Infinity,
    closeAt: Infinity,
  };
}

/** Lowest retained id of the tool's stream (head+1 when nothing is retained). */
export function floorOf(s: ServerState): number {
  const first = s.log[0];
  return first === undefined ? s.head + 1 : first.id;
}

/** The tool's next event (the last one is its result), or `null` when it has nothing to emit. */
export function emit(
  s: ServerState,
  cfg: WorldConfig,
  now: number,
  truth: GroundTruth,
): EventFrame | null {
  if (!s.toolAlive || s.toolEvents >= cfg.N) return null;
  s.toolEvents++;
  const frame = append(s, cfg, now, truth, s.toolEvents === cfg.N, false);
  if (s.toolEvents > 1) {
    const gap = now - s.lastEmitAt;
    if (gap < truth.minEventInterval) truth.minEventInterval = gap;
  }
  s.lastEmitAt = now;
  if (s.connected && s.live) {
    s.out.push({ frame, queuedAt: now });
    if (Number.isFinite(s.closeAt)) s.closeAt = now + cfg.Q;
  }
  return frame;
}

/** Appends the next id of the tool's stream to the log (evicting past the ring's depth). */
function append(
  s: ServerState,
  cfg: WorldConfig,
  now: number,
  truth: GroundTruth,
  result: boolean,
  priming: boolean,
): EventFrame {
  const id = s.head + 1;
  // Two literals rather than a spread of an optional part (this runs on every emit).
  const frame: EventFrame = priming
    ? { k: 'event', id, stream: TOOL_STREAM, epoch: s.epoch, emittedAt: now, result, priming }
    : { k: 'event', id, stream: TOOL_STREAM, epoch: s.epoch, emittedAt: now, result };
  s.head = frame.id;
  truth.emittedAt.push(now);
  s.log.push(frame);
  if (cfg.D !== null && s.log.length > cfg.D) evictOldest(s, truth);
  return frame;
}

/**
 * A priming event (MCP 2025-11-25): the next sequential id with empty data, stored like any
 * event, written when a stream opens. On a resumed stream it follows the replay, so its id is
 * the cursor's successor exactly when nothing was missed: it proves a poll with nothing new.
 */
export function prime(
  s: ServerState,
  cfg: WorldConfig,
  now: number,
  truth: GroundTruth,
): EventFrame {
  return append(s, cfg, now, truth, false, true);
}

/** An event of the other stream of the session (never for the tool's connection). */
export function emitOther(s: ServerState, cfg: WorldConfig, now: number): EventFrame {
  const last = s.otherLog[s.otherLog.length - 1];
  const frame: EventFrame = {
    k: 'event',
    id: (last?.id ?? 0) + 1,
    stream: OTHER_STREAM,
    epoch: s.epoch,
    emittedAt: now,
    result: false,
  };
  s.otherLog.push(frame);
  if (cfg.D !== null && s.otherLog.length > cfg.D) s.otherLog.shift();
  return frame;
}

/** Evicts the oldest retained tool event; returns its id, or `null` when nothing is retained. */
export function evictOldest(s: ServerState, truth: GroundTruth): number | null {
  const gone = s.log.shift();
  if (gone === undefined) return null;
  truth.evicted.push(gone.id);
  return gone.id;
}

/** Drops the open connection and whatever the writer still held for it. */
export function dropConnection(s: ServerState): void {
  s.connected = false;
  s.live = false;
  s.out = [];
  s.keepaliveBlocked = false;
  s.nextKeepaliveAt = Infinity;
  s.closeAt = Infinity;
}

/** Opens a connection whose writer starts with `frames`; the keepalive loop starts with it. */
export function openConnection(
  s: ServerState,
  cfg: WorldConfig,
  now: number,
  frames: readonly QueuedFrame['frame'][],
  live: boolean,
): void {
  dropConnection(s);
  s.connected = true;
  s.live = live;
  s.out = frames.map((frame) => ({ frame, queuedAt: now }));
  s.nextKeepaliveAt = now + cfg.K;
}

/**
 * A restart. With a durable store the session, its log and the tool survive; without one the
 * session is lost, the tool dies and the epoch changes. The connection drops either way.
 */
export function restart(s: ServerState, cfg: WorldConfig, now: number, truth: GroundTruth): void {
  dropConnection(s);
  s.restarted = true;
  truth.restarts.push({ t: now, durable: cfg.durable });
  if (!cfg.durable) loseSession(s, now, truth);
}

/** A restart lost the session: its log, its tool and its epoch are gone (ground truth notes when). */
function loseSession(s: ServerState, now: number, truth: GroundTruth): void {
  s.sessionKnown = false;
  s.recreated = false;
  s.toolAlive = false;
  s.log = [];
  s.otherLog = [];
  s.epochNo++;
  s.epoch = `e${s.epochNo}`;
  if (truth.sessionLostAt === null) truth.sessionLostAt = now;
}

/**
 * A restart into the 2026-07-28 era (a rolling upgrade, mid-call): the new server has no
 * sessions and no resumable streams (SEP-2575), so whatever the store, the session is lost and
 * the call it served with it (closing a response stream cancels its request). From now on it
 * answers every `GET` 405, ignoring `Last-Event-ID` (policies.ts); it writes no ids.
 */
export function restartAs2026(s: ServerState, now: number, truth: GroundTruth): void {
  dropConnection(s);
  s.restarted = true;
  s.upgraded = true;
  truth.restarts.push({ t: now, durable: false, era: '2026-07-28' });
  loseSession(s, now, truth);
}
