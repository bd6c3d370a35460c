/**
 * The client's decision boundary as an XState v5 machine.
 *
 * One question: after a reconnect with `Last-Event-ID: c`, can the client prove that the next
 * event it receives is c+1? If so the reconnect is *resumed*; if not, it is *resumption-failed*;
 * 404/410 is *session-lost*. A declared replay floor that covers c proves nothing: it only lets
 * the client wait (*delayed*) for c+1, for at most the proof budget (docs/spec.md, Terms:
 * "Proof", and rule 7). A 200 answer without a floor that the server ends before any event is a
 * *poll* (MCP 2025-11-25): unproven, not failed; the client reconnects with the same cursor, and
 * the reconnects with one cursor form one episode, judged as one. The rules are applied in the
 * order of docs/spec.md ("The rules", listed in docs/model.md): the guard order of each
 * transition list below IS that order.
 *
 * The machine reads only observations (./observations.ts) and its own context
 * (./context.ts). It never sees the server's log, retention or head: those live in the
 * world's ground truth and only the claims read them.
 */
import { assign, setup } from 'xstate';
import { INITIAL_CONTEXT, type ClientContext } from './context.js';
import * as g from './guards.js';
import type {
  EventObservation,
  Observation,
  OpenObservation,
  ReconnectObservation,
  ResponseObservation,
} from './observations.js';
import type { Outcome, ReasonCode } from './outcomes.js';
import { explain } from './reasons.js';

/** Parameters of the `decide` action: the outcome reached and the rule that reached it. */
export interface DecideParams {
  outcome: Outcome;
  code: ReasonCode;
}

/** The machine's building blocks: named guards and actions over observations only. */
export const clientSetup = setup({
  types: {
    context: {} as ClientContext,
    events: {} as Observation,
  },
  guards: {
    openOk: ({ event }) => g.openOk(INITIAL_CONTEXT, event),
    sessionGone: ({ context, event }) => g.sessionGone(context, event as ResponseObservation),
    statusNotOk: ({ context, event }) => g.statusNotOk(context, event as ResponseObservation),
    sessionNotDurable: ({ context, event }) =>
      g.sessionNotDurable(context, event as ResponseObservation),
    epochChanged: ({ context, event }) => g.epochChanged(context, event as ResponseObservation),
    cursorBelowFloor: ({ context, event }) =>
      g.cursorBelowFloor(context, event as ResponseObservation),
    headBehindCursor: ({ context, event }) =>
      g.headBehindCursor(context, event as ResponseObservation),
    caughtUp: ({ context, event }) => g.caughtUp(context, event as ResponseObservation),
    floorCoversCursor: ({ context, event }) =>
      g.floorCoversCursor(context, event as ResponseObservation),
    eventFromOtherStream: ({ context, event }) =>
      g.eventFromOtherStream(context, event as EventObservation),
    firstIdIsSuccessor: ({ context, event }) =>
      g.firstIdIsSuccessor(context, event as EventObservation),
    idRewinds: ({ context, event }) => g.idRewinds(context, event as EventObservation),
    cursorDropped: ({ context, event }) => g.cursorDropped(context, event as ReconnectObservation),
    noCursor: ({ context, event }) => g.noCursor(context, event as ReconnectObservation),
    idlessSinceCursor: ({ context, event }) =>
      g.idlessSinceCursor(context, event as ReconnectObservation),
  },
  actions: {
    /** A fresh stream: a new session or a re-issued call. Nothing is carried over. */
    open: assign(({ event }) => ({
      ...INITIAL_CONTEXT,
      epoch: (event as OpenObservation).epoch ?? null,
      stream: (event as OpenObservation).stream ?? null,
      cursor: (event as OpenObservation).cursor ?? null,
    })),
    /** The event is delivered to the application and becomes the cursor. */
    acceptEvent: assign(({ context, event }) => ({
      cursor: (event as EventObservation).id,
      stream: context.stream ?? (event as EventObservation).stream ?? null,
      idless: false,
    })),
    /** Id-less data is delivered, and the cursor can no longer name everything delivered. */
    acceptData: assign({ idless: true }),
    /**
     * An event delivered after a failed reconnect, on the stream whose reconnect failed: the
     * machine no longer judges that stream, but the event was delivered after any id-less data,
     * so it ends the taint (rule 0.3, in delivery order: whatever its id, a counter that
     * restarted lower included). The cursor is the next reconnect's to claim.
     */
    clearTaint: assign({ idless: false }),
    /**
     * A new reconnect: the cursor it carries is the one to be proven. Any id-less data was
     * delivered before that cursor (else rule 0 failed the reconnect), so the taint is gone.
     */
    beginReconnect: assign(({ context, event }) => {
      const ev = event as ReconnectObservation;
      return {
        cursor: ev.cursor ?? context.cursor,
        stream: ev.stream ?? context.stream,
        idless: false,
        floor: null,
        outcome: null,
        reason: null,
      };
    }),
    recordFloor: assign(({ event }) => ({ floor: (event as ResponseObservation).floor ?? null })),
    decide: assign(({ context, event }, params: DecideParams) => ({
      outcome: params.outcome,
      reason: explain(params.code, context, event),
    })),
  },
});

const decide = (outcome: Outcome, code: ReasonCode) =>
  ({ type: 'decide', params: { outcome, code } }) as const;
const fail = (code: ReasonCode) => decide('resumption-failed', code);

/** Keepalives reset the idle timer; they never prove anything. */
const KEEPALIVE_PROVES_NOTHING = { description: 'keepalive: resets the idle timer only' } as const;

const CURSOR_DROPPED = {
  guard: 'cursorDropped',
  target: 'resumptionFailed',
  actions: fail('cursor-dropped'),
} as const;
const NO_CURSOR = {
  guard: 'noCursor',
  target: 'resumptionFailed',
  actions: fail('no-cursor'),
} as const;
const IDLESS = {
  guard: 'idlessSinceCursor',
  target: 'resumptionFailed',
  actions: fail('idless-data'),
} as const;
const BEGIN = { target: 'reconnecting', actions: 'beginReconnect' } as const;

/** Rule 0: no cursor, no resumption; then the reconnect is judged by rules 1-7. */
const RECONNECT = [CURSOR_DROPPED, NO_CURSOR, IDLESS, BEGIN] as const;

/**
 * Rule 0 where the client always holds a cursor (every state reached through a reconnect, which
 * needs one, or through an accepted event): a reconnect without one has dropped it. Listing only
 * the guards that can fire keeps every transition of the machine reachable (path coverage).
 */
const RECONNECT_WITH_CURSOR = [CURSOR_DROPPED, IDLESS, BEGIN] as const;

/** As above, where no id-less data can have been delivered either (it fails before proof). */
const RECONNECT_CLEAN = [CURSOR_DROPPED, BEGIN] as const;

/**
 * Before any event proved continuity, id-less data cannot be placed after the cursor. A client
 * that delivers it anyway has tainted the stream too (rule 0.3).
 */
const DATA_BEFORE_PROOF = {
  target: 'resumptionFailed',
  actions: [fail('unproven-data'), 'acceptData'],
} as const;

const OPEN = { guard: 'openOk', target: 'streaming', actions: 'open' } as const;

/** An accepted stream: every event must be the successor of the one before. */
const ACCEPTED_STREAM = {
  EVENT: [
    { guard: 'eventFromOtherStream', target: 'resumptionFailed', actions: fail('cross-stream') },
    { guard: 'firstIdIsSuccessor', actions: 'acceptEvent' },
    { target: 'resumptionFailed', actions: fail('break') },
  ],
  DATA: { actions: 'acceptData' },
  KEEPALIVE: KEEPALIVE_PROVES_NOTHING,
  IDLE_TIMEOUT: 'stalled',
  END: 'closed',
  DISCONNECT: 'closed',
  RECONNECT,
} as const;

/** Rule 6: the first event after the response decides. */
const FIRST_EVENT_DECIDES = [
  { guard: 'eventFromOtherStream', target: 'resumptionFailed', actions: fail('cross-stream') },
  {
    guard: 'firstIdIsSuccessor',
    target: 'resumed',
    actions: [decide('resumed', 'successor'), 'acceptEvent'],
  },
  { guard: 'idRewinds', target: 'resumptionFailed', actions: fail('rewind') },
  { target: 'resumptionFailed', actions: fail('skip') },
] as const;

/** The machine's configuration, exported so that the mutant zoo can patch one piece of it. */
export const clientMachineConfig = {
  id: 'client',
  initial: 'connecting',
  context: INITIAL_CONTEXT,
  states: {
    connecting: {
      description: 'before the first stream is open',
      on: { OPEN },
    },
    streaming: {
      description: 'the first stream of a session: accepted, ids must be contiguous',
      on: ACCEPTED_STREAM,
    },
    stalled: {
      description: 'the idle timer fired: silence, cause unknown',
      on: { RECONNECT, OPEN },
    },
    closed: {
      description: 'the stream ended or broke',
      on: { RECONNECT, OPEN },
    },
    reconnecting: {
      description: 'GET with Last-Event-ID sent, no response yet',
      on: {
        RESPONSE: [
          {
            guard: 'sessionGone',
            target: 'sessionLost',
            actions: decide('session-lost', 'session-gone'),
          },
          { guard: 'statusNotOk', target: 'resumptionFailed', actions: fail('bad-status') },
          { guard: 'sessionNotDurable', target: 'resumptionFailed', actions: fail('not-durable') },
          { guard: 'epochChanged', target: 'resumptionFailed', actions: fail('epoch-changed') },
          {
            guard: 'cursorBelowFloor',
            target: 'resumptionFailed',
            actions: fail('cursor-below-floor'),
          },
          { guard: 'headBehindCursor', target: 'resumptionFailed', actions: fail('head-behind') },
          // Rule 5.4: the stated head is the cursor: nothing is owed, so no clock can fail the
          // stream; as on any accepted stream, its next event must be c+1 (docs/spec.md#caught-up).
          {
            guard: 'caughtUp',
            target: 'resumed',
            actions: ['recordFloor', decide('resumed', 'caught-up')],
          },
          {
            guard: 'floorCoversCursor',
            target: 'delayed',
            actions: ['recordFloor', decide('delayed', 'floor-covers')],
          },
          { target: 'awaitingProof', actions: 'recordFloor' },
        ],
        PROOF_TIMEOUT: { target: 'resumptionFailed', actions: fail('no-response') },
        DISCONNECT: { target: 'resumptionFailed', actions: fail('no-response') },
        END: { target: 'resumptionFailed', actions: fail('no-response') },
      },
    },
    awaitingProof: {
      description: '200 received, no floor; only an event with id cursor+1 proves continuity',
      on: {
        EVENT: FIRST_EVENT_DECIDES,
        DATA: DATA_BEFORE_PROOF,
        KEEPALIVE: KEEPALIVE_PROVES_NOTHING,
        PROOF_TIMEOUT: { target: 'resumptionFailed', actions: fail('unproven') },
        END: 'polling',
        DISCONNECT: { target: 'resumptionFailed', actions: fail('unproven') },
      },
    },
    polling: {
      description:
        'the server ended the answer to the reconnect before any event: unproven, not failed; reconnect with the same cursor',
      on: {
        PROOF_TIMEOUT: { target: 'resumptionFailed', actions: fail('unproven') },
        RECONNECT: RECONNECT_CLEAN,
      },
    },
    delayed: {
      description:
        'a declared floor covers the cursor; silence is backpressure, keep waiting, for at most the proof budget P of the episode',
      on: {
        EVENT: FIRST_EVENT_DECIDES,
        DATA: DATA_BEFORE_PROOF,
        KEEPALIVE: KEEPALIVE_PROVES_NOTHING,
        // Rule 7.1: a floor lets the client wait, not wait forever. The budget runs from the
        // episode's first reconnect; delayed reconnects of the same cursor do not restart it.
        PROOF_TIMEOUT: { target: 'resumptionFailed', actions: fail('unproven') },
        IDLE_TIMEOUT: 'stalled',
        END: 'closed',
        DISCONNECT: 'closed',
        RECONNECT: RECONNECT_CLEAN,
      },
    },
    resumed: {
      description: 'the first event was cursor+1; the stream is accepted',
      on: { ...ACCEPTED_STREAM, RECONNECT: RECONNECT_WITH_CURSOR },
    },
    resumptionFailed: {
      description:
        'continuity cannot be proven: escalate (re-issue only a call that can run twice, else surface a partial result)',
      on: {
        RECONNECT,
        OPEN,
        EVENT: { actions: 'clearTaint' },
        // Rule 0.3 has no exception after a failure: a client that carries on and delivers
        // id-less data on the failed stream has tainted it, and its next reconnect fails.
        DATA: { actions: 'acceptData' },
      },
    },
    sessionLost: {
      description: '404/410: re-initialize',
      on: { RECONNECT: RECONNECT_CLEAN, OPEN },
    },
  },
} as const;

/**
 * The client machine: the decision boundary of the project. It reads only what a client can
 * observe (status, declared floor, epoch, event ids, keepalives, its own timers) and decides
 * each reconnect: resumed, delayed, resumption-failed or session-lost (docs/model.md).
 *
 * @category Model
 * @example
 * ```ts
 * import { runObservations, stateOf } from 'mcp-resumption/model';
 *
 * const snapshot = runObservations([
 *   { type: 'OPEN', status: 200 },
 *   { type: 'EVENT', id: 41 },
 *   { type: 'IDLE_TIMEOUT' },
 *   { type: 'RECONNECT', cursor: 41 },
 *   { type: 'RESPONSE', status: 200 },
 *   { type: 'EVENT', id: 130 }, // not 42: events were skipped
 * ]);
 * stateOf(snapshot); // 'resumptionFailed'
 * snapshot.context.reason?.code; // 'skip'
 * ```
 */
export const clientMachine = clientSetup.createMachine(clientMachineConfig);

/** The machine's type, shared by mutants built from the same setup. */
export type ClientMachine = typeof clientMachine;

/** A state name of the client machine. */
export type ClientStateName = keyof typeof clientMachineConfig.states;

/**
 * States in which a reconnect is still being judged (no decision yet). `polling` is one: its
 * episode goes on with the next reconnect of the same cursor, and fails when the proof budget
 * (`PROOF_TIMEOUT`) runs out first.
 */
export const PENDING_STATES: readonly ClientStateName[] = [
  'reconnecting',
  'awaitingProof',
  'polling',
];

/**
 * States in which the proof budget `P` of an episode runs (rule 7): the pending ones, and
 * `delayed`, which a declared floor lets last at most `P` from the episode's first reconnect.
 * The executors of the machine (the world, the trace checker, the runtime guard) fire
 * `PROOF_TIMEOUT` in these states when the budget runs out.
 */
export const BUDGETED_STATES: readonly ClientStateName[] = [...PENDING_STATES, 'delayed'];

/** States in which the client delivers events to the application. */
export const ACCEPTING_STATES: readonly ClientStateName[] = ['streaming', 'resumed', 'delayed'];
