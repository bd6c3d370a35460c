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

function copyServer(s: ServerState): ServerState {
  return { ...s, log: s.log.slice(), otherLog: s.otherLog.slice(), out: s.out.slice() };
}

// The machine cache and the behaviour are shared by reference: both are fixed per world.
function copyClient(c: ClientState): ClientState {
  return { ...c, delivered: c.delivered.slice() };
}

function copyTruth(t: GroundTruth): GroundTruth {
  return {
    ...t,
    emittedAt: t.emittedAt.slice(),
    evicted: t.evicted.slice(),
    reconnects: t.reconnects.slice(),
    drops: t.drops.slice(),
    idle: t.idle.slice(),
    restarts: t.restarts.slice(),
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
}
