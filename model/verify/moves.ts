/**
 * The moves of the exhaustive search: the world's named commands, and `Tick`, time passing to
 * the next deadline (a keepalive, the idle timer, the proof timer, the reconnect back-off, the
 * polling server's close, the client's request timer). Time is not enumerated by milliseconds: between two deadlines
 * nothing but the clock changes, so the only time step worth taking is to the next one.
 * A `Tick` is replayed as the world command `Advance(ms)` with the distance to that deadline.
 */
import { idleDeadline } from '../world/client.js';
import { applyCommand, type WorldCommand } from '../world/commands.js';
import { advance, pump, type World } from '../world/world.js';
import type { Bounds } from './scope.js';

/** Every move, in the order the search tries them (the order breaks ties between paths). */
export const MOVES = [
  'Emit',
  'Emit(other)',
  'Evict',
  'Restart',
  'SaturateApp',
  'ReleaseApp',
  'Drain',
  'Disconnect',
  'Disconnect(silent)',
  'Reconnect',
  'Tick',
] as const;

/** A move's name. */
export type Move = (typeof MOVES)[number];

/** The index of `Tick` in {@link MOVES}. */
export const TICK = MOVES.indexOf('Tick');

/** What a world has spent of its scope's bounds that its own state does not record. */
export interface Spent {
  disconnects: number;
  otherEmits: number;
}

/** The world command of each move but `Tick`. */
const COMMANDS: readonly (WorldCommand | null)[] = [
  { kind: 'Emit', stream: 'tool' },
  { kind: 'Emit', stream: 'other' },
  { kind: 'Evict' },
  { kind: 'Restart' },
  { kind: 'SaturateApp' },
  { kind: 'ReleaseApp' },
  { kind: 'Drain' },
  { kind: 'Disconnect', silent: false },
  { kind: 'Disconnect', silent: true },
  { kind: 'Reconnect' },
  null,
];

/**
 * The next deadline of `w` (`Infinity`: none), as `advance` computes it. Call after a
 * `pump(w, true)`: reading what is readable moves the idle timer.
 */
export function nextDeadline(w: World): number {
  const s = w.server;
  const c = w.client;
  const ka = s.connected ? s.nextKeepaliveAt : Infinity;
  const rec = c.done === null ? (c.reconnectAt ?? Infinity) : Infinity;
  const close = s.connected ? s.closeAt : Infinity;
  const req = c.requestTimeoutAt ?? Infinity;
  return Math.min(ka, idleDeadline(c, w.cfg), c.proofAt ?? Infinity, rec, close, req);
}

/**
 * `true` when move `m` can change `w` within `bounds`. Moves that could only repeat the state
 * (an Emit of a finished tool, an Evict of an empty log) are left out; they would be found
 * again and dropped as duplicates anyway.
 */
export function enabled(w: World, m: number, bounds: Bounds, spent: Spent): boolean {
  const s = w.server;
  const c = w.client;
  switch (MOVES[m]) {
    case 'Emit':
      return s.toolAlive && s.toolEvents < w.cfg.N;
    case 'Emit(other)':
      return spent.otherEmits < bounds.otherEmits;
    case 'Evict':
      return s.log.length > 0;
    case 'Restart':
      return w.truth.restarts.length < bounds.restarts;
    case 'SaturateApp':
      return !c.appSaturated;
    case 'ReleaseApp':
      return c.appSaturated;
    case 'Drain':
      return true;
    case 'Disconnect':
    case 'Disconnect(silent)':
      return w.net.up && spent.disconnects < bounds.disconnects;
    case 'Reconnect':
      return c.done === null && w.truth.reconnects.length < bounds.reconnects;
    default:
      return true;
  }
}

/**
 * Applies move `m` to `w` and returns the world command it was (`null`: a `Tick` with no
 * deadline ahead, nothing applied). Updates `spent`.
 */
export function applyMove(w: World, m: number, spent: Spent): WorldCommand | null {
  if (m === TICK) {
    pump(w, true);
    const next = nextDeadline(w);
    if (next === Infinity) return null;
    const ms = Math.max(0, next - w.clock.now);
    advance(w, ms);
    return { kind: 'Advance', ms };
  }
  const cmd = COMMANDS[m]!;
  if (cmd.kind === 'Disconnect') spent.disconnects++;
  if (cmd.kind === 'Emit' && cmd.stream === 'other') spent.otherEmits++;
  applyCommand(w, cmd);
  return cmd;
}

/** `true` when `w` went past `bounds` (its reconnects are counted after the move). */
export function outOfScope(w: World, bounds: Bounds): boolean {
  return w.truth.reconnects.length > bounds.reconnects;
}
