/**
 * The seed's conditions of validity, evaluated over a finished world: its configuration and its
 * ground truth. Only the claims read this (it reads ground truth).
 */
import { HONEST_POLICIES } from './config.js';
import type { World } from './world.js';

/** The conditions, named. */
export type ConditionName =
  | 'cursorInWindow'
  | 'honestServer'
  | 'timeoutAboveKeepalive'
  | 'readDecoupled'
  | 'durableOr404'
  | 'cursorAtEveryReconnect'
  | 'proofWithinBudget';

/** Every condition, in the seed's order, with the seed's words. */
export const CONDITIONS: readonly { name: ConditionName; text: string }[] = [
  {
    name: 'cursorInWindow',
    text: 'the cursor is within the retained window at every reconnect (design rule: D x minimum inter-event interval > longest outage)',
  },
  {
    name: 'honestServer',
    text: 'the server replays every event after the cursor before any new one, or rejects distinguishably',
  },
  {
    name: 'timeoutAboveKeepalive',
    text: 'idle timeout T > keepalive interval K + longest write stall',
  },
  {
    name: 'readDecoupled',
    text: 'the socket-read path and the idle timer are not blocked by application work',
  },
  {
    name: 'durableOr404',
    text: 'sessions are durable across restarts, or a restart answers an explicit 404',
  },
  {
    name: 'cursorAtEveryReconnect',
    text: 'every reconnect carries a Last-Event-ID: the stream is primed, or an event with an id arrived before the first reconnect',
  },
  {
    name: 'proofWithinBudget',
    text: 'every reconnect the server can honour is proven at once (a declared floor, a priming event) or by the next event, which reaches the client (for a polling server: emitted at least one back-off R earlier) before the proof budget P of its episode runs out and before the connection drops',
  },
];

/**
 * Every reconnect that the server could honour, and that carries nothing that proves it at
 * once (no declared floor, no priming event), meets its proof (the cursor's successor is
 * emitted) before the proof budget of its episode runs out, and no fault drops its connection
 * before then: an unproven stream that breaks tells the client nothing (rule 7).
 */
function provenWithinBudget(w: World): boolean {
  const { cfg, truth } = w;
  return truth.reconnects.every((r) => {
    const provable = r.status === 200 && r.sessionAlive && r.retained && r.cursor !== null;
    if (!provable || r.declaredFloor !== null) return true;
    let proofAt = r.t;
    if (!r.primed) {
      const next = truth.emittedAt[r.cursor! + 1];
      if (next === undefined) return false;
      // Emitted while the client waits out a poll's back-off, it arrives with the next poll.
      proofAt = Math.max(next, r.t) + (cfg.Q > 0 ? cfg.R : 0);
      if (proofAt >= r.episodeStart + cfg.P) return false;
    }
    return !truth.drops.some((d) => d >= r.t && d <= proofAt);
  });
}

/** Which conditions held in `w`. */
export function conditionsHeld(w: World): Record<ConditionName, boolean> {
  const { cfg, truth } = w;
  return {
    cursorInWindow: truth.reconnects.every((r) => !r.sessionAlive || r.retained),
    honestServer: HONEST_POLICIES.includes(cfg.policy),
    timeoutAboveKeepalive: cfg.T > cfg.K + truth.longestWriteStall,
    readDecoupled: cfg.read === 'decoupled' && cfg.idleOn === 'bytes',
    durableOr404: cfg.durable || cfg.onRestart === '404',
    cursorAtEveryReconnect: truth.cursorlessReconnects === 0,
    proofWithinBudget: provenWithinBudget(w),
  };
}

/** The conditions that failed (all but `ignore`, which is not asked). */
export function brokenConditions(w: World, ignore?: ConditionName): ConditionName[] {
  const held = conditionsHeld(w);
  return (Object.keys(held) as ConditionName[]).filter((k) => k !== ignore && !held[k]);
}
