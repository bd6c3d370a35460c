/**
 * The named predicates of the decision boundary. Each reads only the client's context and the
 * observation in hand; none can see server state. The machine wires them as guards, and the
 * mutant zoo replaces them one at a time.
 */
import type { ClientContext } from './context.js';
import type {
  EventObservation,
  Observation,
  ReconnectObservation,
  ResponseObservation,
} from './observations.js';

/** `true` when the status says the session is gone: 404 or 410 (rule 2). */
export function isSessionGone(status: number): boolean {
  return status === 404 || status === 410;
}

/** Rule 2: the reconnect was answered 404 or 410. */
export function sessionGone(_ctx: ClientContext, ev: ResponseObservation): boolean {
  return isSessionGone(ev.status);
}

/** Rule 3: any other non-200 status. */
export function statusNotOk(_ctx: ClientContext, ev: ResponseObservation): boolean {
  return ev.status !== 200;
}

/** Rule 4, first half: the server says the session is not durable. */
export function sessionNotDurable(_ctx: ClientContext, ev: ResponseObservation): boolean {
  return ev.durable === false;
}

/** Rule 4, second half: the server answers under another session epoch than the stream's. */
export function epochChanged(ctx: ClientContext, ev: ResponseObservation): boolean {
  return ev.epoch !== undefined && ctx.epoch !== null && ev.epoch !== ctx.epoch;
}

/** Rule 5: a declared floor F with c < F - 1: events c+1..F-1 are gone. */
export function cursorBelowFloor(ctx: ClientContext, ev: ResponseObservation): boolean {
  return ev.floor !== undefined && ctx.cursor !== null && ctx.cursor < ev.floor - 1;
}

/**
 * Rule 5.3: the server states a head below the cursor: the client was delivered events the
 * server says it never wrote (a reset counter or a re-created log).
 */
export function headBehindCursor(ctx: ClientContext, ev: ResponseObservation): boolean {
  return ev.head !== undefined && ctx.cursor !== null && ev.head < ctx.cursor;
}

/**
 * Rule 5.4: the server states its head and it is the cursor: nothing after the cursor exists
 * yet, so the reconnect is caught up (resumed); the next event must still be c+1.
 */
export function caughtUp(ctx: ClientContext, ev: ResponseObservation): boolean {
  return ev.head !== undefined && ctx.cursor !== null && ev.head === ctx.cursor;
}

/** Rule 7: a declared floor F <= c+1 covers the cursor: silence is delay, not loss. */
export function floorCoversCursor(ctx: ClientContext, ev: ResponseObservation): boolean {
  return ev.floor !== undefined && (ctx.cursor === null || ev.floor <= ctx.cursor + 1);
}

/** Rule 6: the event names a stream, and it is not the cursor's stream. */
export function eventFromOtherStream(ctx: ClientContext, ev: EventObservation): boolean {
  return ev.stream !== undefined && ctx.stream !== null && ev.stream !== ctx.stream;
}

/**
 * Rule 6 and continuity: the event is the immediate successor of the cursor (or the very first
 * event the client sees, when it has no cursor yet).
 */
export function firstIdIsSuccessor(ctx: ClientContext, ev: EventObservation): boolean {
  return ctx.cursor === null || ev.id === ctx.cursor + 1;
}

/** Rule 6: the event id is at or below the cursor (a reset counter or a duplicate). */
export function idRewinds(ctx: ClientContext, ev: EventObservation): boolean {
  return ctx.cursor !== null && ev.id <= ctx.cursor;
}

/** Rule 0: a reconnect without `Last-Event-ID` although the client has received events. */
export function cursorDropped(ctx: ClientContext, ev: ReconnectObservation): boolean {
  return ev.cursor === null && ctx.cursor !== null;
}

/** Rule 0: a reconnect without `Last-Event-ID`: no server can prove a replay from nothing. */
export function noCursor(_ctx: ClientContext, ev: ReconnectObservation): boolean {
  return ev.cursor === null;
}

/**
 * Rule 0.3: data without an id was delivered and no event since: no cursor can name it. The
 * taint is kept in delivery order (`idless` is set by the data and cleared by the next event
 * delivered, both on an accepted stream, before proof, and on the stream whose reconnect failed), never by comparing
 * ids: after a failed reconnect a server may number again from 1, and an event 3 delivered
 * after the data names it although 3 is below the cursor before the data.
 */
export function idlessSinceCursor(ctx: ClientContext, _ev: ReconnectObservation): boolean {
  return ctx.idless;
}

/** Only a 200 opens a stream. */
export function openOk(_ctx: ClientContext, ev: Observation): boolean {
  return ev.type === 'OPEN' && ev.status === 200;
}
