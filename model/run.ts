/**
 * Driving the client machine without an actor: the pure `transition()` is much cheaper than
 * an actor in the hot loops of the property suites and the trace checker.
 */
import { createActor, initialTransition, transition, type AnyActorScope } from 'xstate';
import {
  BUDGETED_STATES,
  clientMachine,
  PENDING_STATES,
  type ClientMachine,
  type ClientStateName,
} from './client-machine.js';
import type { Observation } from './observations.js';

/** A snapshot of the client machine (or of one of its mutants). */
export type ClientSnapshot = ReturnType<ClientMachine['resolveState']>;

/** The machine's initial snapshot. */
export function initialSnapshot(machine: ClientMachine = clientMachine): ClientSnapshot {
  return initialTransition(machine)[0];
}

/**
 * The actor scope `transition()` would build for `machine`, built once. xstate's `transition()`
 * makes a new inert actor (and system) for every call, which was about half the cost of a
 * step; the client machine spawns no actors and its actions are all `assign`s, which the
 * transition applies itself, so an inert scope that executes nothing can serve every step.
 * (properties/machine/step-scope.test.ts holds the two ways of stepping to the same result.)
 */
const scopes = new WeakMap<ClientMachine, AnyActorScope>();
function inertScope(machine: ClientMachine): AnyActorScope {
  let scope = scopes.get(machine);
  if (scope === undefined) {
    const self = createActor(machine);
    const noop = () => {};
    scope = {
      self,
      defer: noop,
      id: '',
      logger: noop,
      sessionId: '',
      stopChild: noop,
      system: self.system,
      emit: noop,
      actionExecutor: noop,
    } as unknown as AnyActorScope;
    scopes.set(machine, scope);
  }
  return scope;
}

/** One observation. */
export function step(
  snapshot: ClientSnapshot,
  observation: Observation,
  machine: ClientMachine = clientMachine,
): ClientSnapshot {
  return machine.transition(snapshot, observation, inertScope(machine));
}

/** One observation through xstate's own `transition()` (a new inert actor each call). */
export function stepByTransition(
  snapshot: ClientSnapshot,
  observation: Observation,
  machine: ClientMachine = clientMachine,
): ClientSnapshot {
  return transition(machine, snapshot, observation)[0];
}

/** Feeds a whole sequence of observations, from the initial snapshot. */
export function runObservations(
  observations: Iterable<Observation>,
  machine: ClientMachine = clientMachine,
): ClientSnapshot {
  let snap = initialSnapshot(machine);
  for (const o of observations) snap = step(snap, o, machine);
  return snap;
}

/** The name of the (flat) state the snapshot is in. */
export function stateOf(snapshot: ClientSnapshot): ClientStateName {
  return snapshot.value as ClientStateName;
}

/** `true` while a reconnect is still being judged. */
export function isPending(snapshot: ClientSnapshot): boolean {
  return PENDING_STATES.includes(stateOf(snapshot));
}

/** `true` while the proof budget of an episode runs: a pending reconnect, or a delayed one. */
export function isBudgeted(snapshot: { value: unknown }): boolean {
  return BUDGETED_STATES.includes(snapshot.value as ClientStateName);
}

/**
 * `true` when a next reconnect with the same cursor goes on with the current episode and its
 * proof budget instead of starting a new one: the machine is polling (rule 7.3), or the latest
 * reconnect was delayed and no event has come since (rule 7.1: the stream ended, broke or went
 * idle, and the same floor may make the next reconnect delayed again). Each executor checks
 * the cursor itself, in its own terms.
 */
export function episodeGoesOn(snapshot: {
  value: unknown;
  context: { outcome: string | null };
}): boolean {
  return snapshot.value === 'polling' || snapshot.context.outcome === 'delayed';
}

/**
 * Closes the judgement window of a pending reconnect: the proof timer fires no later than the
 * next reconnect or the end of the observations. A reconnect still unproven then has failed.
 */
export function settle(
  snapshot: ClientSnapshot,
  machine: ClientMachine = clientMachine,
): ClientSnapshot {
  return isPending(snapshot) ? step(snapshot, { type: 'PROOF_TIMEOUT' }, machine) : snapshot;
}
