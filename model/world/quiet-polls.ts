/**
 * Runs of identical quiet polls, jumped over in one step (as `skipQuietKeepalives` jumps over
 * quiet keepalive ticks). A polling client whose server has nothing new for it reconnects every
 * back-off R, is answered an empty stream, and the server ends that stream Q ms later: each
 * poll of such a run is the one before it, shifted in time. When two consecutive polls find the
 * world in the same state (every field equal, times relative to now), the world between them
 * was a period of a deterministic function of that state (no command ran: a command clears the
 * mark), so the next polls repeat it exactly; the ones before the next deadline (the end of
 * this `advance`, the episode's proof budget) are applied at once: their ground-truth records,
 * observation counts and the clock, with the same effect as running them. A poll's longest
 * outage is not replayed: it only grows with time, and the poll run after the jump records it.
 *
 * properties/world/quiet-polls.property.test.ts holds a world with the skip equal, field by
 * field, to the same world stepped poll by poll, and every claim's verdict with it.
 */
import type { World } from './world-state.js';

export type { PollMark } from './world-state.js';

/**
 * Everything the world's future depends on, at a poll moment: time fields relative to now
 * (they move with the polls), absolute deadlines and counters as they are. The client's
 * machine snapshot is interned (one object per distinct snapshot), so identity is equality.
 */
function pollState(w: World): unknown[] {
  const { client: c, server: s, truth, net } = w;
  const now = w.clock.now;
  return [
    c.snap,
    c.cursor,
    c.hasCursor,
    c.episodeStart,
    c.delivered.length,
    c.connected,
    c.appSaturated,
    c.appBacklog,
    c.lastByteAt - now,
    c.lastAppAt - now,
    c.reconnectAt === null ? null : c.reconnectAt - now,
    c.proofAt,
    c.eventsSinceReconnect,
    c.forgetCursor,
    c.done,
    c.requestTimeoutAt,
    s.epoch,
    s.sessionKnown,
    s.recreated,
    s.restarted,
    s.upgraded,
    s.toolAlive,
    s.head,
    s.log.length,
    s.log[0]?.id,
    s.toolEvents,
    s.otherLog.length,
    s.lastEmitAt,
    s.connected,
    s.live,
    s.out.length,
    s.keepaliveBlocked,
    s.nextKeepaliveAt,
    s.closeAt,
    net.up,
    net.socket.length,
    truth.emittedAt.length,
    truth.evicted.length,
    truth.cursorlessReconnects,
    truth.drops.length,
    truth.noticedDrops.length,
    truth.idle.length,
    truth.sessionLostAt,
    truth.restarts.length,
    truth.longestWriteStall,
    truth.minEventInterval,
  ];
}

function sameState(a: readonly unknown[], b: readonly unknown[]): boolean {
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}

/**
 * Called when the polling client's back-off has elapsed, just before it reconnects. Remembers
 * this poll; when the one before was the same state `d` ms earlier, jumps over the whole polls
 * that fit before `end` and before the proof budget runs out (the proof timer fires before a
 * reconnect due at the same moment), leaving the clock at the last of them, which then runs.
 */
export function skipQuietPolls(w: World, end: number): void {
  const c = w.client;
  if (w.timeline !== null || c.done !== null || c.snap.value !== 'polling') {
    w.pollMark = null;
    return;
  }
  const now = w.clock.now;
  const state = pollState(w);
  const prev = w.pollMark;
  const reconnects = w.truth.reconnects.length;
  w.pollMark = { t: now, state, reconnects, observations: c.observations };
  if (prev === null || !sameState(prev.state, state)) return;
  const d = now - prev.t;
  if (!(d > 0)) return;
  // Polls at now + k*d for k = 1..m: each at or before `end`, each before the proof timer.
  const byEnd = Math.floor((end - now) / d);
  const byProof = c.proofAt === null ? Infinity : Math.ceil((c.proofAt - now) / d) - 1;
  const m = Math.min(byEnd, byProof);
  if (!(m >= 1) || !Number.isFinite(m)) return;
  // What one period recorded, repeated m times, shifted by whole periods.
  const period = w.truth.reconnects.slice(prev.reconnects, reconnects);
  for (let k = 1; k <= m; k++)
    for (const r of period) w.truth.reconnects.push({ ...r, t: r.t + k * d });
  const shift = m * d;
  c.observations += m * (c.observations - prev.observations);
  c.lastByteAt += shift;
  c.lastAppAt += shift;
  if (c.reconnectAt !== null) c.reconnectAt += shift;
  w.clock.now = now + shift;
  w.pollMark = {
    t: w.clock.now,
    state: pollState(w),
    reconnects: w.truth.reconnects.length,
    observations: c.observations,
  };
}
