/**
 * The seed's conditions of validity, evaluated over a finished world: its configuration and its
 * ground truth. Only the claims read this (it reads ground truth).
 */
import { isHonestPolicy } from './config.js';
import type { WorldConfig } from './config.js';
import type { GroundTruth } from './ground-truth.js';
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
    text: 'the server meets server requirement 4 of docs/spec.md: it replays every event after the cursor before any new one, polls only while nothing after the cursor exists, or rejects distinguishably',
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
    text: 'sessions are durable across restarts, or a restart answers an explicit 404 (a restart into the 2026-07-28 era, which answers 405, breaks it)',
  },
  {
    name: 'cursorAtEveryReconnect',
    text: 'every reconnect carries a Last-Event-ID: the stream is primed, or an event with an id arrived before the first reconnect',
  },
  {
    name: 'proofWithinBudget',
    text: 'every reconnect the server can honour is proven at once (a priming event) or by the next event, which reaches the client (for a polling server: emitted at least one back-off R earlier) before the proof budget P of its episode runs out (a declared floor lets the client wait, not past P) and before the connection drops (a delayed one is reconnected within its episode after a drop: one back-off R after a drop it notices, one idle timeout T after a silent one)',
  },
];

/**
 * When the proof of a delayed reconnect (declared floor) reaches the client, given when it
 * would on its own connection. A drop does not fail a delayed reconnect (rule 7.1): the client
 * reconnects within the same episode and the successor is replayed there, one back-off `R`
 * after a drop it noticed (or its own `Reconnect`), or when its idle timer (`T`, measuring
 * bytes) fires after a silent drop or a restart. Each drop before the proof defers it.
 */
export function delayedProofAt(
  truth: GroundTruth,
  cfg: WorldConfig,
  from: number,
  proofAt: number,
) {
  const noticed = [...truth.noticedDrops];
  let at = proofAt;
  for (const d of truth.drops) {
    const i = noticed.indexOf(d);
    if (i >= 0) noticed.splice(i, 1);
    if (d >= from && d <= at) at = Math.max(at, d + (i >= 0 ? cfg.R : cfg.T));
  }
  return at;
}

/**
 * Every reconnect that the server could honour, and that carries nothing that proves it at
 * once (no priming event), meets its proof (the cursor's successor is emitted) before the proof
 * budget of its episode runs out (rule 7.5; a declared floor only lets the client wait that
 * long, rule 7.1), and, unless a declared floor made it delayed, no fault drops its
 * connection before then: an unproven stream that breaks tells the client nothing (rule 7.4),
 * while a delayed one is reconnected within its episode ({@link delayedProofAt}).
 */
function provenWithinBudget(w: World): boolean {
  const { cfg, truth } = w;
  return truth.reconnects.every((r) => {
    const provable = r.status === 200 && r.sessionAlive && r.retained && r.cursor !== null;
    if (!provable) return true;
    // Caught up (docs/spec.md#caught-up): the server stated that nothing after the cursor
    // exists yet. Nothing is owed, so nothing needs proof: no silence of the tool can fail it.
    if (r.declaredHead !== null && r.declaredHead === r.cursor) return true;
    const delayed = r.declaredFloor !== null;
    let proofAt = r.t;
    if (!r.primed) {
      const next = truth.emittedAt[r.cursor! + 1];
      if (next === undefined) return false;
      // Emitted while the client waits out a poll's back-off, it arrives with the next poll.
      proofAt = Math.max(next, r.t) + (cfg.Q > 0 ? cfg.R : 0);
    }
    // A priming event proves at once, unless a drop loses it before it is read.
    if (delayed) proofAt = delayedProofAt(truth, cfg, r.t, proofAt);
    if ((!r.primed || delayed) && proofAt >= r.episodeStart + cfg.P) return false;
    return delayed || !truth.drops.some((d) => d >= r.t && d <= proofAt);
  });
}

/** Which conditions held in `w`. */
export function conditionsHeld(w: World): Record<ConditionName, boolean> {
  const { cfg, truth } = w;
  return {
    cursorInWindow: truth.reconnects.every((r) => !r.sessionAlive || r.retained),
    honestServer: isHonestPolicy(cfg.policy),
    timeoutAboveKeepalive: cfg.T > cfg.K + truth.longestWriteStall,
    readDecoupled: cfg.read === 'decoupled' && cfg.idleOn === 'bytes',
    // A restart into the 2026-07-28 era answers 405: no session survives, and nothing says so.
    durableOr404:
      (cfg.durable || cfg.onRestart === '404') && !truth.restarts.some((r) => r.era !== undefined),
    cursorAtEveryReconnect: truth.cursorlessReconnects === 0,
    proofWithinBudget: provenWithinBudget(w),
  };
}

/** The conditions that failed (all but `ignore`, which is not asked). */
export function brokenConditions(w: World, ignore?: ConditionName): ConditionName[] {
  const held = conditionsHeld(w);
  return (Object.keys(held) as ConditionName[]).filter((k) => k !== ignore && !held[k]);
}
