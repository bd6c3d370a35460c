/**
 * The client mutants of the world: each changes one thing about the model's client, either its
 * machine (reusing ./machine-mutants.ts where one fits) or its behaviour around the machine.
 */
import { never } from './constant-guards.js';
import { assign } from 'xstate';
import { clientMachine, type ClientMachine } from '../client-machine.js';
import type { ClientContext } from '../context.js';
import type { ReconnectObservation } from '../observations.js';
import type { Subject } from '../world/property.js';
import { MACHINE_MUTANTS } from './machine-mutants.js';

/** A deliberately wrong client. */
export interface ClientMutant {
  name: string;
  /** What is wrong with it, in one sentence. */
  description: string;
  /** What runs instead of the model's client. */
  subject: Subject;
}

function machineMutant(name: string): ClientMachine {
  const m = MACHINE_MUTANTS.find((x) => x.name === name);
  if (!m) throw new Error(`no machine mutant ${name}`);
  return m.machine;
}

/** Never compares the cursor with a declared floor, in either direction (rules 5 and 7). */
const ignoresFloorMachine: ClientMachine = clientMachine.provide({
  guards: { cursorBelowFloor: never, floorCoversCursor: never },
});

/** Reconnects without Last-Event-ID are not flagged, and start from no cursor at all. */
const dropsCursorMachine: ClientMachine = clientMachine.provide({
  guards: { cursorDropped: never, noCursor: never },
  actions: {
    beginReconnect: assign(({ context, event }: { context: ClientContext; event: unknown }) => {
      const ev = event as ReconnectObservation;
      return {
        cursor: ev.cursor,
        stream: ev.stream ?? context.stream,
        floor: null,
        outcome: null,
        reason: null,
      };
    }) as never,
  },
});

/** Every client mutant, in the order. */
export const CLIENT_MUTANTS: readonly ClientMutant[] = [
  {
    name: 'trusts-any-200',
    description: 'checks nothing: any 200 is a resumption, any first event is accepted',
    subject: { machine: machineMutant('accept-any-200') },
  },
  {
    name: 'ignores-floor',
    description: 'never compares the cursor with the declared floor, so a floor cannot let it wait',
    subject: { machine: ignoresFloorMachine },
  },
  {
    name: 'off-by-one-floor',
    description: 'checks c < F - 2 instead of c < F - 1: a floor one past the successor passes',
    subject: { machine: machineMutant('off-by-one-floor') },
  },
  {
    name: 'unproven-forever',
    description:
      'no proof budget without a floor: an empty re-created stream keeps the client waiting, or polling, forever',
    subject: { machine: machineMutant('unproven-forever') },
  },
  {
    name: 'idle-on-app-thread',
    description:
      'the idle timer measures events processed by the application thread: backpressure is loss',
    subject: { behaviour: { idleOn: 'events' } },
  },
  {
    name: 'drops-cursor',
    description:
      'after an empty resumed stream it reconnects without Last-Event-ID and accepts what comes',
    subject: { machine: dropsCursorMachine, behaviour: { dropsCursorAfterEmptyResume: true } },
  },
  {
    name: 'fails-empty-poll',
    description:
      'fails every resumed stream that the server ends before any event: polling (MCP 2025-11-25) is taken for loss',
    subject: { machine: machineMutant('fails-empty-poll') },
  },
  {
    name: 'delayed-forever',
    description:
      'waits forever on a declared floor: delayed has no proof budget, so a floor with no event after it never escalates',
    subject: { machine: machineMutant('delayed-forever') },
  },
  {
    name: 'accepts-no-cursor',
    description:
      'a reconnect without Last-Event-ID (nothing received yet) is judged like any other: any first id passes',
    subject: { machine: machineMutant('accepts-no-cursor') },
  },
  {
    name: 'head-ahead-caught-up',
    description:
      'takes a stated head above the cursor for caught up: the events it is owed are waited for with no proof budget',
    subject: { machine: machineMutant('head-ahead-caught-up') },
  },
  {
    name: 'waits-for-request-timeout',
    description:
      'decides correctly, but leaves the call pending until its own request timeout (60 s) rejects it with no outcome',
    subject: { behaviour: { waitsForRequestTimeout: true } },
  },
];
