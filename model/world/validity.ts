/**
 * The seed's conditions of validity, evaluated over a finished world: its configuration and its
 * ground truth. Only the claims read this (it reads ground truth).
 */
import { HONEST_POLICIES } from './config.js';
import type { World } from './world.js';

/** The conditions, named. */
export type ConditionName =
  'cursorInWindow' | 'honestServer' | 'timeoutAboveKeepalive' | 'readDecoupled' | 'durableOr404';

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
];

/** Which conditions held in `w`. */
export function conditionsHeld(w: World): Record<ConditionName, boolean> {
  const { cfg, truth } = w;
  return {
    cursorInWindow: truth.reconnects.every((r) => !r.sessionAlive || r.retained),
    honestServer: HONEST_POLICIES.includes(cfg.policy),
    timeoutAboveKeepalive: cfg.T > cfg.K + truth.longestWriteStall,
    readDecoupled: cfg.read === 'decoupled' && cfg.idleOn === 'bytes',
    durableOr404: cfg.durable || cfg.onRestart === '404',
  };
}

/** The conditions that failed (all but `ignore`, which is not asked). */
export function brokenConditions(w: World, ignore?: ConditionName): ConditionName[] {
  const held = conditionsHeld(w);
  return (Object.keys(held) as ConditionName[]).filter((k) => k !== ignore && !held[k]);
}
