/**
 * Runs one {@link ReconnectResult} (the seed's vocabulary) through the client machine, so the
 * reference function and the machine can be compared on the same input.
 */
import { clientMachine, type ClientMachine } from '../model/client-machine.js';
import type { Observation } from '../model/observations.js';
import type { Outcome, Reason } from '../model/outcomes.js';
import { runObservations, settle, stateOf } from '../model/run.js';
import type { Event, ReconnectResult } from './reference.js';

/** The machine's verdict on one reconnect. */
export interface Classification {
  outcome: Outcome;
  reason: Reason | null;
  /** The machine state after the observations. */
  state: string;
  /** The observations fed to the machine. */
  observations: Observation[];
}

/**
 * The observations a client makes for one reconnect: a stream opened under epoch `e1`, a
 * reconnect with `cursor`, the response, then the first event and the rest (or, when the
 * stream was empty, the server ending it).
 */
export function reconnectObservations(
  cursor: number,
  result: ReconnectResult,
  retainedFloor: number | null = null,
  rest: Iterable<Event> = [],
): Observation[] {
  const floor = result.replayFloor ?? retainedFloor;
  const obs: Observation[] = [
    { type: 'OPEN', status: 200, epoch: 'e1' },
    { type: 'RECONNECT', cursor },
    {
      type: 'RESPONSE',
      status: result.httpStatus,
      durable: result.sessionDurable,
      ...(floor !== null ? { floor } : {}),
    },
  ];
  if (result.firstEvent) {
    obs.push({ type: 'EVENT', id: result.firstEvent.id });
    for (const ev of rest) obs.push({ type: 'EVENT', id: ev.id });
  }
  obs.push({ type: 'END' });
  return obs;
}

/** Classifies one reconnect with the machine (or a mutant of it). */
export function classifyReconnect(
  cursor: number,
  result: ReconnectResult,
  retainedFloor: number | null = null,
  rest: Iterable<Event> = [],
  machine: ClientMachine = clientMachine,
): Classification {
  const observations = reconnectObservations(cursor, result, retainedFloor, rest);
  const snap = settle(runObservations(observations, machine), machine);
  const outcome = snap.context.outcome;
  if (outcome === null) {
    throw new Error(`machine reached ${stateOf(snap)} without an outcome`);
  }
  return { outcome, reason: snap.context.reason, state: stateOf(snap), observations };
}
