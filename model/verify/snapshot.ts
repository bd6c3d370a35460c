/**
 * Copies of a world's mutable state, so that a breadth-first search can branch: every move is
 * applied to one scratch world (created once, with its port and machine cache), loaded from a
 * snapshot before the move and read back after it. The world is plain data: frames, queued
 * frames, timeline-free truth records and machine snapshots are never mutated once made, so
 * copying the arrays that hold them (not the elements) is a deep enough copy.
 *
 * The lists the world only ever appends to (the ground truth's records and the client's
 * delivered events) are not copied: a snapshot shares them with the world it was taken from
 * and keeps their lengths, and loading it cuts them back to those lengths. So a snapshot holds
 * only while no world loaded from an older snapshot of the same lists has appended to them:
 * the search keeps its snapshots as a stack of the prefixes of one path (each one taken from
 * the world loaded from the one below it), and loads a snapshot only after it has dropped
 * every snapshot above it, which it then replaces.
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
  /** Lengths of the shared lists when the snapshot was taken. */
  delivered: number;
  emitted: number;
  evicted: number;
  reconnects: number;
  drops: number;
  noticedDrops: number;
  idle: number;
  restarts: number;
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
    upgraded: s.upgraded,
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
    delivered: c.delivered, // shared (see the module comment)
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
    decidedAt: c.decidedAt,
    call: c.call, // never mutated once made
    requestTimeoutAt: c.requestTimeoutAt,
    observations: c.observations,
    // The translator goes on independently in each branch.
    wire: c.wire === null ? null : c.wire.clone(),
  };
}

// The lists are shared (see the module comment); only the scalars are copied.
function copyTruth(t: GroundTruth): GroundTruth {
  return {
    emittedAt: t.emittedAt,
    epoch: t.epoch,
    evicted: t.evicted,
    reconnects: t.reconnects,
    cursorlessReconnects: t.cursorlessReconnects,
    drops: t.drops,
    noticedDrops: t.noticedDrops,
    idle: t.idle,
    sessionLostAt: t.sessionLostAt,
    restarts: t.restarts,
    longestWriteStall: t.longestWriteStall,
    minEventInterval: t.minEventInterval,
    longestOutage: t.longestOutage,
  };
}

/** A copy of `w`'s mutable state. */
export function takeSnapshot(w: World): WorldSnapshot {
  const t = w.truth;
  return {
    now: w.clock.now,
    server: copyServer(w.server),
    up: w.net.up,
    socket: w.net.socket.slice(),
    client: copyClient(w.client),
    truth: copyTruth(t),
    delivered: w.client.delivered.length,
    emitted: t.emittedAt.length,
    evicted: t.evicted.length,
    reconnects: t.reconnects.length,
    drops: t.drops.length,
    noticedDrops: t.noticedDrops.length,
    idle: t.idle.length,
    restarts: t.restarts.length,
  };
}

/**
 * Cuts a shared list back to the length a snapshot saw: a move appends an element or two, and
 * popping them is cheaper than setting the length.
 */
function cut(xs: unknown[], n: number): void {
  while (xs.length > n) xs.pop();
}

/**
 * Loads a copy of `s` into `w` (the snapshot stays intact, and so do the snapshots below it on
 * the stack; those above it no longer hold). `w`'s port reads the world's fields at each call,
 * so it serves the loaded state. With `last`, the snapshot's own state is loaded rather than a
 * copy: the caller never uses the snapshot again.
 */
export function restoreSnapshot(w: World, s: WorldSnapshot, last = false): void {
  w.clock.now = s.now;
  w.net.up = s.up;
  if (last) {
    w.server = s.server;
    w.net.socket = s.socket;
    w.client = s.client;
    w.truth = s.truth;
  } else {
    w.server = copyServer(s.server);
    w.net.socket = s.socket.slice();
    w.client = copyClient(s.client);
    w.truth = copyTruth(s.truth);
  }
  const t = w.truth;
  cut(w.client.delivered, s.delivered);
  cut(t.emittedAt, s.emitted);
  cut(t.evicted, s.evicted);
  cut(t.reconnects, s.reconnects);
  cut(t.drops, s.drops);
  cut(t.noticedDrops, s.noticedDrops);
  cut(t.idle, s.idle);
  cut(t.restarts, s.restarts);
  w.command = -1;
  w.pollMark = null;
}
