/**
 * Driving the client machine without an actor: the pure `transition()` is much cheaper than
 * an actor in the hot loops of the property suites and the trace checker.
 */
import { initialTransition, transition } from 'xstate';
import {
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

/** One observation. */
export function step(
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
