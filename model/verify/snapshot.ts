/**
 * Copies of a world's mutable state, so that a breadth-first search can branch: every move is
 * applied to one scratch world (created once, with its port and machine cache), loaded from a
 * snapshot before the move and read back after it. The world is plain data: frames, queued
 * frames, timeline-free truth records and machine snapshots are never mutated once made, so
 * copying the arrays that hold them (not the elements) is a deep enough copy.
 */
import type { ClientState } from '../world/client.js';
import type { Frame } from '../world/frames.js';
import type { GroundTruth } from '../world/ground-truth.js';
import type { ServerState } from '../world/server.js';
import type { World } from '../world/world.js';

/** Everything of a world that a command can change (the configuration and port are fixed). */
export interface WorldSnapshot {
  now: number;
  server: ServerState;
  up: boolean;
  socket: Frame[];
  client: ClientState;
  truth: GroundTruth;
}

// Field by field rather than by spread: the search copies worlds several times a state, and
// a literal of a fixed shape is cheaper to build than a spread with overrides. A field added
// to one of these types and not copied here is a type error (none of them is optional).
const copy = <T>(xs: T[]): T[] => (xs.length === 0 ? [] : xs.slice());

function copyServer(s: ServerState): ServerState {
  return {
    epoch: s.epoch,
    epochNo: s.epochNo,
    sessionKnown: s.sessionKnown,
    recreated: s.recreated,
    restarted: s.restarted,
    toolAlive: s.toolAlive,
    log: copy(s.log),
    head: s.head,
    toolEvents: s.toolEvents,
    otherLog: copy(s.otherLog),
    lastEmitAt: s.lastEmitAt,
    connected: s.connected,
    live: s.live,
    out: copy(s.out),
    keepaliveBlocked: s.keepaliveBlocked,
    nextKeepaliveAt: s.nextKeepaliveAt,
    closeAt: s.closeAt,
  };
}

// The machine cache and the behaviour are shared by reference: both are fixed per world.
function copyClient(c: ClientState): ClientState {
  return {
    cache: c.cache,
    snap: c.snap,
    entry: c.entry,
    behaviour: c.behaviour,
    cursor: c.cursor,
    hasCursor: c.hasCursor,
    episodeStart: c.episodeStart,
    delivered: copy(c.delivered),
    connected: c.connected,
    appSaturated: c.appSaturated,
    appBacklog: c.appBacklog,
    lastByteAt: c.lastByteAt,
    lastAppAt: c.lastAppAt,
    reconnectAt: c.reconnectAt,
    proofAt: c.proofAt,
    eventsSinceReconnect: c.eventsSinceReconnect,
    forgetCursor: c.forgetCursor,
    done: c.done,
    error: c.error,
    observations: c.observations,
    // The translator goes on independently in each branch.
    wire: c.wire === null ? null : c.wire.clone(),
  };
}

function copyTruth(t: GroundTruth): GroundTruth {
  return {
    emittedAt: copy(t.emittedAt),
    epoch: t.epoch,
    evicted: copy(t.evicted),
    reconnects: copy(t.reconnects),
    cursorlessReconnects: t.cursorlessReconnects,
    drops: copy(t.drops),
    noticedDrops: copy(t.noticedDrops),
    idle: copy(t.idle),
    sessionLostAt: t.sessionLostAt,
    restarts: copy(t.restarts),
    longestWriteStall: t.longestWriteStall,
    minEventInterval: t.minEventInterval,
    longestOutage: t.longestOutage,
  };
}

/** A copy of `w`'s mutable state. */
export function takeSnapshot(w: World): WorldSnapshot {
  return {
    now: w.clock.now,
    server: copyServer(w.server),
    up: w.net.up,
    socket: w.net.socket.slice(),
    client: copyClient(w.client),
    truth: copyTruth(w.truth),
  };
}

/**
 * Loads a copy of `s` into `w` (the snapshot stays intact). `w`'s port reads the world's
 * fields at each call, so it serves the loaded state.
 */
export function restoreSnapshot(w: World, s: WorldSnapshot): void {
  w.clock.now = s.now;
  w.server = copyServer(s.server);
  w.net.up = s.up;
  w.net.socket = s.socket.slice();
  w.client = copyClient(s.client);
  w.truth = copyTruth(s.truth);
  w.command = -1;
  w.pollMark = null;
}
