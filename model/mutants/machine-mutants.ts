/**
 * Deliberately wrong variants of the client machine (the P-language habit: keep the buggy
 * system beside the correct one). Each replaces one guard or one transition, so a property
 * that kills it shows that it tests that piece of the decision boundary.
 *
 * The world's client and server mutants (which also change behaviour outside the decision,
 * such as what the client sends) build on these; see model/mutants/ for the rest of the zoo.
 */
import { assign } from 'xstate';
import {
  clientMachine,
  clientMachineConfig,
  clientSetup,
  type ClientMachine,
  type ClientStateName,
} from '../client-machine.js';
import type { ClientContext } from '../context.js';
import type { ResponseObservation } from '../observations.js';
import type { Outcome, ReasonCode } from '../outcomes.js';
import { always, never } from './constant-guards.js';

/** One mutant of the client machine. */
export interface MachineMutant {
  /** Short stable name, used in kill tables and test names. */
  name: string;
  /** What is wrong with it, in one sentence. */
  description: string;
  machine: ClientMachine;
}

const resp = (event: unknown) => event as ResponseObservation;

/** Floor check off by one in the unsafe direction: accepts F = c+2, where event c+1 is gone. */
const offByOneFloor: MachineMutant = {
  name: 'off-by-one-floor',
  description: 'checks c < F - 2 instead of c < F - 1, so a floor one past the successor passes',
  machine: clientMachine.provide({
    guards: {
      cursorBelowFloor: ({ context, event }: { context: ClientContext; event: unknown }) =>
        resp(event).floor !== undefined &&
        context.cursor !== null &&
        context.cursor < (resp(event).floor as number) - 2,
      floorCoversCursor: ({ context, event }: { context: ClientContext; event: unknown }) =>
        resp(event).floor !== undefined &&
        (context.cursor === null || (resp(event).floor as number) <= context.cursor + 2),
    },
  }),
};

/** The machine's configuration with one event of one state's transitions left out. */
function without<S extends 'delayed' | 'resumptionFailed'>(
  state: S,
  event: keyof (typeof clientMachineConfig.states)[S]['on'],
) {
  const on: Record<string, unknown> = { ...clientMachineConfig.states[state].on };
  delete on[event as string];
  return {
    ...clientMachineConfig,
    states: {
      ...clientMachineConfig.states,
      [state]: { ...clientMachineConfig.states[state], on },
    },
  } as typeof clientMachineConfig;
}

/** The machine's configuration without the proof budget of `delayed` (rule 7.1). */
const NO_DELAYED_BUDGET = without('delayed', 'PROOF_TIMEOUT');

/** The machine without the proof budget of `delayed`: it waits there forever. */
const noDelayedBudget = clientSetup.createMachine(NO_DELAYED_BUDGET) as ClientMachine;

/**
 * Trusts any 200: no durability, epoch, floor or id check; an empty stream is "delayed", and
 * since the 200 is its proof, nothing bounds the wait (no proof budget in `delayed`).
 */
const acceptAny200: MachineMutant = {
  name: 'accept-any-200',
  description: 'treats any 200 as proof: ignores durability, epoch, floor and the first id',
  machine: noDelayedBudget.provide({
    guards: {
      sessionNotDurable: never,
      epochChanged: never,
      cursorBelowFloor: never,
      floorCoversCursor: always,
      eventFromOtherStream: never,
      firstIdIsSuccessor: always,
    },
  }),
};

/** Ignores a declared floor: a cursor below the floor is not noticed. */
const ignoresFloor: MachineMutant = {
  name: 'ignores-floor',
  description: 'never compares the cursor with the declared floor (rule 5 dropped)',
  machine: clientMachine.provide({ guards: { cursorBelowFloor: never } }),
};

/** Ignores session re-creation: a non-durable answer or a new epoch passes as a resumption. */
const ignoresEpoch: MachineMutant = {
  name: 'ignores-epoch',
  description: 'never checks durability or the session epoch (rule 4 dropped)',
  machine: clientMachine.provide({ guards: { sessionNotDurable: never, epochChanged: never } }),
};

/**
 * The machine (or `base`, a configuration patched from it) with one transition of
 * `awaitingProof` replaced by a decision.
 */
function awaitingProofOn(
  event: 'KEEPALIVE' | 'END',
  target: ClientStateName,
  outcome: Outcome,
  code: ReasonCode,
  base: typeof clientMachineConfig = clientMachineConfig,
): ClientMachine {
  return clientSetup.createMachine({
    ...base,
    states: {
      ...base.states,
      awaitingProof: {
        ...base.states.awaitingProof,
        on: {
          ...base.states.awaitingProof.on,
          [event]: { target, actions: { type: 'decide', params: { outcome, code } } },
        },
      },
    },
  }) as ClientMachine;
}

/**
 * A keepalive after a 200 counts as proof that the session is alive and the cursor covered: the
 * reconnect is delayed as if a floor had been declared. One fault: the proof budget still bounds
 * the wait (that fault alone is `unproven-forever`, and for a floor `delayed-forever`), so what
 * changes is what a delayed stream may do and an unproven one may not: a disconnect no longer
 * fails the reconnect (rule 7.2), and the next reconnect of the cursor carries on the episode.
 */
const keepaliveIsProof: MachineMutant = {
  name: 'keepalive-is-proof',
  description:
    'a keepalive while awaiting proof moves the reconnect to delayed, as if a floor covered the cursor',
  machine: awaitingProofOn('KEEPALIVE', 'delayed', 'delayed', 'floor-covers'),
};

/** The machine's configuration without the proof budget of an unproven reconnect (rule 7.4). */
const NO_UNPROVEN_BUDGET = (() => {
  const without = <T extends { on: object }>(state: T): T => {
    const { PROOF_TIMEOUT, ...on } = state.on as { PROOF_TIMEOUT?: unknown };
    void PROOF_TIMEOUT;
    return { ...state, on };
  };
  return {
    ...clientMachineConfig,
    states: {
      ...clientMachineConfig.states,
      awaitingProof: without(clientMachineConfig.states.awaitingProof),
      polling: without(clientMachineConfig.states.polling),
    },
  };
})();

/**
 * The proof budget dropped for a reconnect without a floor: a 200 that never sends an event (the
 * seed's third variant, a re-created session) keeps the client waiting while keepalives come,
 * and polls forever. One fault: a keepalive still proves nothing.
 */
const unprovenForever: MachineMutant = {
  name: 'unproven-forever',
  description:
    'ignores the proof budget while unproven: a 200 with no floor and no event keeps the client waiting, or polling, forever',
  machine: clientSetup.createMachine(NO_UNPROVEN_BUDGET) as ClientMachine,
};

/** Accepts a skipping first event: continuity checked only for rewinds. */
const acceptsSkip: MachineMutant = {
  name: 'accepts-skip',
  description: 'accepts a first event above cursor+1 (the seed incident: resume from the head)',
  machine: clientMachine.provide({
    guards: {
      firstIdIsSuccessor: ({ context, event }: { context: ClientContext; event: unknown }) =>
        context.cursor === null || (event as { id: number }).id > context.cursor,
    },
  }),
};

/** The old rule 7: a resumed stream that ends before any event has failed (no polling). */
const failsEmptyPoll: MachineMutant = {
  name: 'fails-empty-poll',
  description:
    'fails every resumed stream the server ends before any event, so spec-compliant polling is loss',
  machine: awaitingProofOn('END', 'resumptionFailed', 'resumption-failed', 'unproven'),
};

/** The old rule 6 without a cursor: after a reconnect without Last-Event-ID any first id passes. */
const acceptsNoCursor: MachineMutant = {
  name: 'accepts-no-cursor',
  description:
    'a reconnect without Last-Event-ID is judged like any other, and any first id after it passes',
  machine: clientMachine.provide({ guards: { noCursor: never } }),
};

/** Id-less data is taken for a keepalive: it neither taints the cursor nor fails a reconnect. */
const idlessIsKeepalive: MachineMutant = {
  name: 'idless-is-keepalive',
  description: 'reads data without an id as a keepalive, so a reconnect after it looks provable',
  machine: clientMachine.provide({
    guards: { idlessSinceCursor: never },
    actions: { acceptData: assign({}) } as never,
  }),
};

/** Id-less data delivered after a failed reconnect is dropped: the next reconnect looks clean. */
const ignoresDataAfterFailure: MachineMutant = {
  name: 'ignores-data-after-failure',
  description:
    'drops id-less data delivered after a failed reconnect, so a later reconnect of the tainted stream can be resumed',
  machine: clientSetup.createMachine(without('resumptionFailed', 'DATA')) as ClientMachine,
};

/** The old rule 7.1: `delayed` has no proof budget, so a floor lets the client wait forever. */
const delayedForever: MachineMutant = {
  name: 'delayed-forever',
  description:
    'ignores the proof budget while delayed: a declared floor with no event after it keeps the client waiting forever',
  machine: noDelayedBudget,
};

/**
 * Takes a stated head above the cursor for caught up: the events c+1..H are owed, yet the
 * reconnect is resumed and no clock bounds them (docs/spec.md#caught-up).
 */
const headAheadIsCaughtUp: MachineMutant = {
  name: 'head-ahead-caught-up',
  description:
    'takes a stated head above the cursor for caught up: events it is owed are waited for with no budget',
  machine: clientMachine.provide({
    guards: {
      caughtUp: ({ context, event }: { context: ClientContext; event: unknown }) =>
        resp(event).head !== undefined &&
        context.cursor !== null &&
        (resp(event).head as number) >= context.cursor,
    },
  }),
};

/** Every machine mutant, in the order of the docs. */
export const MACHINE_MUTANTS: readonly MachineMutant[] = [
  offByOneFloor,
  acceptAny200,
  ignoresFloor,
  ignoresEpoch,
  keepaliveIsProof,
  unprovenForever,
  acceptsSkip,
  failsEmptyPoll,
  acceptsNoCursor,
  idlessIsKeepalive,
  ignoresDataAfterFailure,
  delayedForever,
  headAheadIsCaughtUp,
];
