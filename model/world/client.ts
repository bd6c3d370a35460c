/**
 * The client: a reader that drains the socket (unless the read path is coupled to a saturated
 * application thread), an idle timer, a proof timer, a cursor, and the client machine deciding
 * every reconnect. The client feeds the machine observations only; it reaches the server through
 * a {@link ClientPort} that returns what an HTTP client sees, never server state.
 */
import { ACCEPTING_STATES, type ClientStateName } from '../client-machine.js';
import type { Observation } from '../observations.js';
import { episodeGoesOn, isBudgeted, type ClientSnapshot } from '../run.js';
import type { WorldConfig } from './config.js';
import { TOOL_STREAM, type EventFrame, type Frame } from './frames.js';
import type { MemoEntry, StepCache } from './machine-cache.js';
import type { AnsweredResponse, ClientWire } from './task-wire.js';

/**
 * The client's own request timeout, virtual ms: the SDK's default (`DEFAULT_REQUEST_TIMEOUT_MSEC`,
 * 60 s). The model's client never needs it: its call ends when the tool's result arrives or when
 * its machine decides a failure. It is armed only when the stream has stopped for good and the
 * call was left pending (the `waits-for-request-timeout` mutant).
 */
export const REQUEST_TIMEOUT_MS = 60_000;

/** How the application's call ended (`ClientState.call`). */
export interface CallEnd {
  /** Virtual time it ended. */
  at: number;
  /** What ended it: the tool's result, the machine's decision, or the client's own request timer. */
  by: 'result' | 'decision' | 'request-timeout';
  /** The outcome the call's error carries (`null`: it carries none, or the call resolved). */
  outcome: 'resumption-failed' | 'session-lost' | null;
  /** The error the call rejected with (`null`: it resolved with the result). */
  error: string | null;
}

/** What the client can do to the outside world. */
export interface ClientPort {
  /** Virtual time now. */
  now(): number;
  /** The client is about to reconnect with this cursor (before its machine judges it). */
  reconnecting(cursor: number | null): void;
  /**
   * `GET` with `Last-Event-ID: cursor` (a `tasks/stream` call with `after` in the task-stream
   * world): the response headers, and a task-stream error's facts; a 200 opens the stream.
   */
  reconnect(cursor: number | null): AnsweredResponse;
  /** The client closes its connection. */
  close(): void;
  /** Called after every observation fed to the machine (timelines, coverage). */
  observed(o: Observation, before: ClientSnapshot, after: ClientSnapshot): void;
}

/** Client behaviour that a mutant may change (the machine is the other part). */
export interface ClientBehaviour {
  /** What the idle timer measures. */
  idleOn: 'bytes' | 'events';
  /** After a resumed stream ends without any event, the next reconnect sends no Last-Event-ID. */
  dropsCursorAfterEmptyResume: boolean;
  /**
   * Every reconnect sends no cursor: a task-stream client that calls `tasks/stream` again
   * without `after` to "receive all retained events from the beginning" (SEP-2694).
   */
  omitsCursor?: boolean;
  /**
   * After its machine decides resumption-failed or session-lost, the client stops its stream but
   * leaves the application's call pending until its own request timer ends it (as SDK 1.x and 2.x
   * do when nothing answers the request: `Request timed out`, 60 s by default).
   */
  waitsForRequestTimeout?: boolean;
}

/** The client's state. */
export interface ClientState {
  cache: StepCache;
  snap: ClientSnapshot;
  /** The memo entry of `snap` (the machine is stepped from it). */
  entry: MemoEntry;
  behaviour: ClientBehaviour;
  /** Id of the last event delivered to the application (0: the primed start of the stream). */
  cursor: number;
  /** The client has a cursor to send: the stream was primed, or an event arrived. */
  hasCursor: boolean;
  /** When the current episode of reconnects began (its proof budget runs from here). */
  episodeStart: number | null;
  /** Every event delivered to the application, in order. */
  delivered: EventFrame[];
  /** The client believes its connection is open. */
  connected: boolean;
  appSaturated: boolean;
  /** Events delivered but not yet processed by the application thread. */
  appBacklog: number;
  lastByteAt: number;
  lastAppAt: number;
  reconnectAt: number | null;
  proofAt: number | null;
  /** Events accepted since the latest reconnect. */
  eventsSinceReconnect: number;
  /** The next reconnect sends no Last-Event-ID (mutant behaviour). */
  forgetCursor: boolean;
  /** `complete`: the tool's result was delivered; `failed`: an error surfaced to the app. */
  done: 'complete' | 'failed' | null;
  /** The error surfaced to the application. */
  error: string | null;
  /** When the machine decided resumption-failed or session-lost (`null`: it has not). */
  decidedAt: number | null;
  /** How the application's call ended (`null`: it is still pending). */
  call: CallEnd | null;
  /** When the client's own request timer fires (`null`: not armed). */
  requestTimeoutAt: number | null;
  /** Observations fed to the machine. */
  observations: number;
  /**
   * The binding's translator in front of the machine (the task-stream world), or `null`: the
   * client's observations go to the machine as they are (SSE, the native binding).
   */
  wire: ClientWire | null;
}

const ACCEPTING = new Set<string>(ACCEPTING_STATES);
const TAKES_EVENTS = new Set<string>([...ACCEPTING_STATES, 'awaitingProof']);

/** A client that has just opened the tool call's stream under `epoch`. */
export function newClient(
  cache: StepCache,
  behaviour: ClientBehaviour,
  epoch: string,
  port: ClientPort,
  primed = true,
  wire: ClientWire | null = null,
): ClientState {
  const c: ClientState = {
    cache,
    snap: cache.initial,
    entry: cache.entryOf(cache.initial),
    behaviour,
    cursor: 0,
    hasCursor: primed,
    episodeStart: null,
    delivered: [],
    connected: true,
    appSaturated: false,
    appBacklog: 0,
    lastByteAt: port.now(),
    lastAppAt: port.now(),
    reconnectAt: null,
    proofAt: null,
    eventsSinceReconnect: 0,
    forgetCursor: false,
    done: null,
    error: null,
    decidedAt: null,
    call: null,
    requestTimeoutAt: null,
    observations: 0,
    wire,
  };
  feed(c, { type: 'OPEN', status: 200, epoch }, port);
  return c;
}

/** The state the client's machine is in. */
export function clientState(c: ClientState): ClientStateName {
  return c.snap.value as ClientStateName;
}

/**
 * Feeds the machine what the client observed (through the binding's translator when there is
 * one); `true` when an event was accepted: taken in an accepting or proof-awaiting state and
 * the machine still accepts after it (a duplicate the translator drops is not).
 */
function feed(c: ClientState, o: Observation, port: ClientPort): boolean {
  if (c.wire === null) return step(c, o, port);
  let accepted = false;
  for (const x of c.wire.input(o)) {
    // Once the machine decided a failure the client stops: what the translator says after it
    // (an A2A client's re-sync on the snapshot) is the application's remedy, outside the world.
    if (c.done !== null) break;
    if (step(c, x, port)) accepted = true;
  }
  return accepted;
}

function step(c: ClientState, o: Observation, port: ClientPort): boolean {
  const before = c.snap;
  c.entry = c.cache.next(c.entry, o);
  c.snap = c.entry.snap;
  c.observations++;
  port.observed(o, before, c.snap);
  const state = clientState(c);
  if (c.done === null && (state === 'resumptionFailed' || state === 'sessionLost')) {
    c.done = 'failed';
    c.error = `${c.snap.context.outcome}: ${c.snap.context.reason?.text ?? state}`;
    disconnect(c, port);
    decided(c, port.now());
  }
  // Id-less data (A2A 1.0's updates) is delivered too: no cursor can name it, but the
  // application has it.
  return (
    (o.type === 'EVENT' || o.type === 'DATA') &&
    TAKES_EVENTS.has(before.value as string) &&
    ACCEPTING.has(state)
  );
}

/**
 * The machine decided a failure at `now`: the application's call ends at once, rejected with an
 * error that carries the outcome; or, for a client that waits for its request timeout, the call
 * stays pending and the request timer is armed.
 */
function decided(c: ClientState, now: number): void {
  c.decidedAt = now;
  if (c.behaviour.waitsForRequestTimeout === true) {
    c.requestTimeoutAt = now + REQUEST_TIMEOUT_MS;
    return;
  }
  const outcome = clientState(c) === 'sessionLost' ? 'session-lost' : 'resumption-failed';
  c.call = { at: now, by: 'decision', outcome, error: c.error };
}

/** The client's own request timer fired: a call still pending rejects with a plain timeout. */
export function requestTimeout(c: ClientState, now: number): void {
  c.requestTimeoutAt = null;
  if (c.call === null)
    c.call = { at: now, by: 'request-timeout', outcome: null, error: 'Request timed out' };
}

/**
 * A task-stream call whose answer has not come yet (its 200 is its first event, result or
 * error): its proof budget runs, and a silent receiver fails it when the budget runs out.
 */
function awaitingAnswer(c: ClientState): boolean {
  return c.wire !== null && clientState(c) === 'reconnecting';
}

function disconnect(c: ClientState, port: ClientPort): void {
  if (c.connected) port.close();
  c.connected = false;
  c.proofAt = null;
}

/** `true` when the reader may read: connected, and not blocked by a saturated app thread. */
export function canRead(c: ClientState, cfg: WorldConfig): boolean {
  return c.connected && c.done === null && !(cfg.read === 'coupled' && c.appSaturated);
}

/** The application thread processes what was delivered, unless it is saturated. */
export function runApp(c: ClientState, now: number): void {
  if (!c.appSaturated && c.appBacklog > 0) {
    c.appBacklog = 0;
    c.lastAppAt = now;
  }
}

/** A resumed stream that ends before any event: the cursor-dropping mutant forgets its cursor. */
function markEmptyResume(c: ClientState): void {
  if (clientState(c) === 'delayed' && c.eventsSinceReconnect === 0)
    c.forgetCursor = c.behaviour.dropsCursorAfterEmptyResume;
}

function streamEnded(c: ClientState, cfg: WorldConfig, now: number): void {
  if (c.done !== null) return;
  c.connected = false;
  // A poll keeps its episode's proof budget running; anything else has no proof pending.
  if (clientState(c) !== 'polling') c.proofAt = null;
  c.reconnectAt = now + cfg.R;
}

/** One frame read from the socket. */
export function readFrame(c: ClientState, f: Frame, cfg: WorldConfig, port: ClientPort): void {
  const now = port.now();
  c.lastByteAt = now;
  if (f.k === 'keepalive') {
    feed(c, { type: 'KEEPALIVE' }, port);
    return;
  }
  if (f.k === 'end') {
    markEmptyResume(c);
    feed(c, { type: 'END' }, port);
    if (c.connected) port.close();
    streamEnded(c, cfg, now);
    return;
  }
  if (feed(c, { type: 'EVENT', id: f.id, stream: f.stream }, port)) {
    c.delivered.push(f);
    c.cursor = f.id;
    c.hasCursor = true;
    c.eventsSinceReconnect++;
    c.appBacklog++;
    if (f.result && f.stream === TOOL_STREAM) {
      c.done = 'complete';
      c.call = { at: now, by: 'result', outcome: null, error: null };
      disconnect(c, port);
    }
  }
}

/** The connection broke and the client noticed. */
export function noticeDisconnect(c: ClientState, cfg: WorldConfig, port: ClientPort): void {
  if (c.done !== null || !c.connected) return;
  const now = port.now();
  markEmptyResume(c);
  feed(c, { type: 'DISCONNECT' }, port);
  streamEnded(c, cfg, now);
}

/** When the idle timer fires next (`Infinity`: not armed). */
export function idleDeadline(c: ClientState, cfg: WorldConfig): number {
  if (!c.connected || c.done !== null || !ACCEPTING.has(clientState(c))) return Infinity;
  return (c.behaviour.idleOn === 'bytes' ? c.lastByteAt : c.lastAppAt) + cfg.T;
}

/** The idle timer fired: the stream is declared stalled, abandoned, and reconnected at once. */
export function idleTimeout(c: ClientState, cfg: WorldConfig, port: ClientPort): void {
  markEmptyResume(c);
  feed(c, { type: 'IDLE_TIMEOUT' }, port);
  if (c.done !== null) return;
  disconnect(c, port);
  reconnect(c, cfg, port);
}

/** The proof timer fired while a reconnect was still unproven, or still delayed (rule 7.1). */
export function proofTimeout(c: ClientState, port: ClientPort): void {
  c.proofAt = null;
  if (isBudgeted(c.snap) || awaitingAnswer(c)) feed(c, { type: 'PROOF_TIMEOUT' }, port);
}

/** Reconnects now with `Last-Event-ID: cursor` (dropping the current connection if open). */
export function reconnect(c: ClientState, cfg: WorldConfig, port: ClientPort): void {
  if (c.done !== null) return;
  c.reconnectAt = null;
  if (c.connected) markEmptyResume(c);
  const s = clientState(c);
  if (s === 'reconnecting' || s === 'awaitingProof') {
    feed(c, { type: 'PROOF_TIMEOUT' }, port);
    if (c.done !== null) return;
  }
  if (c.connected) disconnect(c, port);
  const cursor = c.forgetCursor || !c.hasCursor || c.behaviour.omitsCursor ? null : c.cursor;
  c.forgetCursor = false;
  // A poll (the server ended the resumed stream before any event), or a reconnect after a
  // delayed one with no event since, goes on with its episode and its proof budget.
  const before = c.snap;
  port.reconnecting(cursor);
  feed(c, { type: 'RECONNECT', cursor, stream: TOOL_STREAM }, port);
  if (c.done !== null) return;
  // Under a binding the cursor that counts is the one the translator resumed from (a call
  // again without `after` before any event resumes from the task's start): the machine's.
  const goesOn =
    episodeGoesOn(before) &&
    (c.wire === null
      ? cursor !== null && cursor === before.context.cursor
      : clientState(c) === 'reconnecting' && c.snap.context.cursor === before.context.cursor);
  const now = port.now();
  if (!goesOn || c.episodeStart === null) c.episodeStart = now;
  const response = port.reconnect(cursor);
  c.connected = response.status === 200;
  c.lastByteAt = now;
  c.lastAppAt = now;
  c.eventsSinceReconnect = 0;
  feed(c, response, port);
  if (c.done !== null) return;
  // Unproven or delayed, the episode's budget runs (already spent: the timer fires at once).
  if (isBudgeted(c.snap) || awaitingAnswer(c)) c.proofAt = c.episodeStart + cfg.P;
  if (!c.connected) streamEnded(c, cfg, now);
}
