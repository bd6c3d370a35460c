/**
 * The guard's core: it holds the streams it follows (tracks) and turns wire facts into machine
 * observations. Every HTTP-level fact becomes one trace line (format v1) and the one machine
 * observation that line maps to (`observationOf`); the machine decides, and the core reports
 * (`onDecision`, `onFailure`, `onTrace`), fails the stream, and keeps the runtime's bounds: the
 * proof budget of an episode, the cap on streams followed, and refusing every later GET of a
 * failed stream until the application re-issues its call. The body reader (guard-body.ts) and
 * the request handling (guard-requests.ts) are adapters on it; how a failure ends a call, and
 * the answers to a failed stream's requests, are call-endings.ts's.
 */
import type { Observation } from '../../model/observations.js';
import type { Outcome, Reason } from '../../model/outcomes.js';
import { isBudgeted } from '../../model/run.js';
import { StreamResumptionError, type FailedCall } from '../reference.js';
import { observationOf } from '../trace/checker.js';
import type { MachineState } from '../trace/engine.js';
import type { TraceLine } from '../trace/format.js';
import { settledIdPrefix } from './call-settlement.js';
import { DecisionCore, type Escalation } from './decision-core.js';
import { defaultIdReader } from './guard-ids.js';
import {
  configOf,
  type ContinuityGuardOptions,
  type GuardConfig,
  type GuardTraceLine,
  type IdReader,
} from './guard-options.js';
import { isPending, stateOf, type Track } from './guard-track.js';
import { SessionCursors } from './session-cursors.js';
import { eventLine, type AckStatement, type Call } from './guard-wire.js';

/**
 * A request refused because the guard already follows `maxStreams` streams: nothing was sent.
 * Finish or re-issue the calls in flight, or raise `maxStreams`.
 */
export class GuardCapacityError extends Error {
  /** The bound that was reached. */
  readonly maxStreams: number;
  constructor(maxStreams: number) {
    super(
      `continuityGuard: already following maxStreams (${maxStreams}) streams; the request was refused before it was sent`,
    );
    this.name = 'GuardCapacityError';
    this.maxStreams = maxStreams;
  }
}

/** What a guard holds, for tests and health checks ({@link inspectGuard}). */
export interface GuardState {
  /** Streams followed: open, owed a reconnect, or failed and waiting for a re-issue. */
  streams: number;
  /** Of those, failed streams whose every GET is refused until their call is re-issued. */
  failed: number;
  /** Of those, interrupted streams owed a reconnect. */
  owed: number;
  /** Of those, streams whose reconnect is still being judged (a proof budget is running). */
  pending: number;
}

/**
 * Methods whose request may run twice without harm (MCP's reads): the advice in a failure's
 * words may say "re-issue" for them. A `tools/call` may not (its tool may have done its work),
 * nor any other method: for those the words say "surface a partial result"; whether a tool may
 * run twice is the application's to say, or its annotations' (`reissueOnce`).
 */
const READS = new Set([
  'tools/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'ping',
]);

/** What the application can do about a call that lost its response (see `READS`). */
export function adviceFor(method: unknown): string {
  return typeof method === 'string' && READS.has(method)
    ? 're-issue the request as a new one (a read may run twice)'
    : 'surface a partial result (re-issue only a call that may run twice: see reissueOnce)';
}

/** Why a request's stream that ended without its response fails its call, with `clientResumes: false`. */
const NO_RESUMING_CLIENT =
  'the stream ended before its response and this client never reconnects a stream (clientResumes: false), so nothing will resume it';

const CURSORLESS_END =
  'the stream ended before its response and named no event to resume from (no SSE id: a 2026-07-28 server, or a server without an event store), so nothing can resume it';

/**
 * The tracks of one guard and the SSE side of the decisions about them: the machine, the clock,
 * the trace, a step turned into decisions and the proof budget are the shared decision core's
 * (decision-core.ts, the task guard's too); this adapter adds the SSE wire's mapping (ids,
 * `Last-Event-ID`, statuses) and the runtime's bounds.
 */
export class GuardCore extends DecisionCore<Track, string> {
  readonly cfg: GuardConfig;
  readonly readId: IdReader;
  private nextTrackId = 1;
  /** Every stream followed (the memory the cap bounds). */
  readonly tracks = new Set<Track>();
  /** Requests sent that may open a stream: they hold a place under the cap. */
  reserved = 0;
  /**
   * Per session (`scopeOf`), the streams by the last id they delivered: a resume's
   * `Last-Event-ID` names one of its own session.
   */
  private readonly sessions: SessionCursors;
  /** Interrupted streams that hold a cursor: a GET without one has dropped it (rule 0). */
  readonly waitingWithCursor: Track[] = [];
  /** Interrupted standalone streams that never received an id: they reconnect without one. */
  readonly waitingPlain: Track[] = [];
  /** Failed streams, latest last: GETs without a cursor are theirs until the re-issue. */
  readonly failed: Track[] = [];
  /**
   * The prefix of the ids of the events this guard writes itself (random: no server has it);
   * the call endings (call-endings.ts) write and recognise them.
   */
  readonly ownIdPrefix = settledIdPrefix();

  constructor(readonly options: ContinuityGuardOptions) {
    const cfg = configOf(options);
    const onTrace = options.onTrace;
    super({
      machine: options.machine,
      proofTimeoutMs: cfg.proofTimeoutMs,
      enforce: cfg.enforce,
      trace: onTrace ? (line, track) => onTrace(line as GuardTraceLine, track.id) : undefined,
      onFailure: options.onFailure,
    });
    this.cfg = cfg;
    this.readId = options.readId ?? defaultIdReader;
    this.sessions = this.sessionCursors();
  }

  /** The guard's cursor indexes (made once, by the constructor). */
  protected sessionCursors(): SessionCursors {
    return new SessionCursors();
  }

  /** What the guard holds now ({@link inspectGuard}). */
  state(): GuardState {
    return {
      streams: this.tracks.size,
      failed: this.failed.length,
      owed: this.waitingWithCursor.length + this.waitingPlain.length,
      pending: [...this.tracks].filter((t) => isPending(t.snapshot)).length,
    };
  }

  /** Closes a pending judgement window, as `settle` of model/run.ts does. */
  settle(state: MachineState): MachineState {
    return isPending(state) ? this.engine.step(state, { type: 'PROOF_TIMEOUT' }) : state;
  }

  remove(list: Track[], track: Track) {
    const at = list.indexOf(track);
    if (at >= 0) list.splice(at, 1);
  }

  /** What a failure reports of the track's call, and where its stream stood. */
  failedCall(track: Track): FailedCall {
    const named = track.cursor ?? track.lastId;
    const id = track.request?.id;
    const method = track.request?.method;
    return {
      requestId: typeof id === 'string' || typeof id === 'number' ? id : null,
      method: typeof method === 'string' ? method : null,
      request: track.request,
      stream: (named !== null ? this.readId(named)?.stream : undefined) ?? null,
      cursor: track.reconnected ? track.cursor : null,
      lastDelivered: track.lastId,
    };
  }

  /**
   * The stream of session `scope` whose last delivered id is `lastEventId` (`undefined`: none
   * followed). A stream of another session that delivered the same id is not it (R3-1).
   */
  holding(lastEventId: string, scope = ''): Track | undefined {
    return this.sessions.holding(scope, lastEventId);
  }

  /** Drops the cursor a track holds from the index, unless a later stream holds it now. */
  forget(track: Track) {
    track.cursors.forget(track);
  }

  /** Forgets a stream: its response arrived and it ended, or its call was re-issued. */
  free(track: Track) {
    clearTimeout(track.budget);
    const followed = this.tracks.delete(track);
    this.forget(track);
    if (followed) this.sessions.leave(track.scope);
    this.remove(this.waitingWithCursor, track);
    this.remove(this.waitingPlain, track);
    this.remove(this.failed, track);
  }

  newTrack(call: Call, scope = ''): Track {
    const machine = this.machineTrack();
    const track: Track = {
      id: this.nextTrackId++,
      machine,
      get snapshot() {
        return machine.snapshot;
      },
      set snapshot(state) {
        machine.snapshot = state;
      },
      lastId: null,
      scope,
      cursors: this.sessions.enter(scope),
      completed: false,
      plain: false,
      failure: null,
      request: call?.request ?? null,
      cursor: null,
      settled: false,
      reconnected: false,
      episodeT: 0,
      held: false,
      heldAt: 0,
    };
    this.tracks.add(track);
    return track;
  }

  /** The SSE guard's decision report: the outcome, and the last id the stream delivered. */
  protected reportDecision(track: Track, outcome: Outcome, reason: Reason | null): void {
    this.options.onDecision?.({ outcome, reason, cursor: track.lastId });
  }

  /** The SSE guard's error shaper: the reason `why` it names itself, or the machine's. */
  protected shapeFailure(
    track: Track,
    o: Observation,
    e: Escalation,
    why: string | undefined,
  ): StreamResumptionError {
    if (track.tooLarge !== undefined && e.outcome === 'resumption-failed') {
      // The server answered, with an event too large to read: that is the cause (issue 38:
      // a 9 MiB result read as "no response to the reconnect").
      const cause =
        `an SSE event larger than maxEventBytes (${track.tooLarge} bytes) was given up unread, ` +
        'so nothing proved the resume (raise maxEventBytes above the largest message the ' +
        'server sends)';
      return new StreamResumptionError(cause, 'unproven', e.outcome, this.failedCall(track));
    }
    // (What the server said with a refusal, when it said something: why it refused.)
    const said = track.serverSaid ? `; the server said: ${track.serverSaid}` : '';
    return new StreamResumptionError(
      (why ?? e.text) + said,
      e.code,
      e.outcome,
      this.failedCall(track),
    );
  }

  protected keepFailure(track: Track, error: StreamResumptionError): StreamResumptionError {
    return this.fail(track, error);
  }

  /** The stream failed: every later GET for it is refused with `error` until the re-issue. */
  fail(track: Track, error: StreamResumptionError): StreamResumptionError {
    track.failure ??= error;
    this.remove(this.waitingWithCursor, track);
    this.remove(this.waitingPlain, track);
    // A stream already freed (its response arrived) owes nothing: nothing to refuse later.
    if (this.tracks.has(track) && !this.failed.includes(track)) this.failed.push(track);
    return track.failure;
  }

  /**
   * Records one trace line and feeds the machine its observation through the format's own
   * mapping (`observationOf`), so that what the guard decides on and what it records cannot
   * drift apart. While an episode is budgeted (pending or delayed), its budget is checked first
   * against the line's time, as the trace checker does with `proofBudget`, a reconnect's line
   * included: a poll, or a reconnect of a delayed stream, made after the budget ran out (its
   * timer not run yet) is refused before it is sent.
   */
  record(
    track: Track,
    line: Exclude<TraceLine, { type: 'decision' }>,
    extra?: Record<string, unknown>,
    why?: string,
    at?: number,
  ): StreamResumptionError | null {
    // The clock is read only where a time is used: a budget to check, or a trace line (a
    // decision line carries the time of the line before it). An event of a first stream, the
    // common case, needs neither. (`at`: the fact's own time, when it is fed later.)
    const traced = this.traced;
    const budgeted = isBudgeted(track.snapshot);
    const t = at ?? (traced || budgeted ? this.now() : 0);
    if (budgeted) {
      const e = this.outOfBudget(track, t);
      if (e) return e;
    }
    if (traced) this.emit(track, extra === undefined ? line : { ...line, ...extra }, t);
    if (!this.enforce && line.type === 'response' && track.reconnected) {
      // Observe-only: what a bare client decides is to accept any 200 answer.
      const outcome = line.status === 200 ? 'resumed' : 'resumption-failed';
      this.emit(track, { type: 'decision', outcome });
    }
    return this.decide(track, observationOf(line) as Observation, why);
  }

  /**
   * An event whose id was read: the machine's fast path when it takes the event (the cursor's
   * successor after the same pure cursor step, machine-track.ts), else {@link record}. Both
   * record the same line and leave the machine in the same state.
   */
  event(
    t: Track,
    id: number,
    stream: string | undefined,
    response: boolean,
  ): StreamResumptionError | null {
    if (!t.machine.successor(id, stream)) return this.record(t, eventLine(id, stream, response));
    // (A pure cursor step leaves a state without a budget, and decides nothing.)
    if (this.options.onTrace) this.emit(t, eventLine(id, stream, response), this.now());
    return null;
  }

  /**
   * When the budget runs out, a held answer is fed first, as it is: its own line, over the
   * budget too, comes back here unheld. A timer that fired a little early by the wall clock
   * leaves the answer judged in time: the budget still ends the episode.
   */
  protected override beforeRunOut(track: Track): StreamResumptionError | null | undefined {
    if (!track.held) return undefined;
    const e = this.answer(track);
    return e || !isBudgeted(track.snapshot) ? e : undefined;
  }

  /**
   * Feeds a held 200 to the machine, with what an acknowledgment states (its floor, and its
   * head: caught up, docs/spec.md#caught-up) if one came first. Its line carries the time its
   * headers came (`heldAt`), not the time it is fed: a 200 that came within the budget was
   * answered in time whenever its first item (or the budget's timer, which may fire a little
   * early or late by the wall clock) feeds it. So a resume answered 200 that then says nothing
   * is `unproven` (rule 7) and never `no-response` (rule 1), however loaded the machine is.
   */
  answer(track: Track, ack?: AckStatement): StreamResumptionError | null {
    track.held = false;
    const line = { type: 'response', status: 200, ...ack };
    return this.record(
      track,
      line as TraceLine & { type: 'response' },
      undefined,
      undefined,
      track.heldAt,
    );
  }

  /** The id the client now holds: a later `Last-Event-ID` naming it resumes this track. */
  remember(track: Track, id: string) {
    if (!this.tracks.has(track)) return; // freed: its response arrived
    track.cursors.remember(track, id);
  }

  /**
   * A stream ended or broke: a completed one is forgotten, an interrupted one is owed a
   * reconnect. A request's stream that holds no cursor cannot be resumed (a 2026-07-28 server
   * sends no ids; so does a 2025-11-25 server without an event store): for the machine that is
   * a reconnect without a cursor, a failed resumption (rule 0), and the call it owed ends now
   * (returned: the error to end it with) instead of waiting for a response that cannot come.
   */
  streamEnded(track: Track, abandoned: boolean): StreamResumptionError | null {
    track.giveUp = undefined;
    if (track.failure) return null;
    if (track.completed) {
      this.free(track);
      return null;
    }
    // A request's stream no reconnect will resume: it holds no cursor, or the client never
    // reconnects (`clientResumes: false`).
    const lost =
      this.enforce &&
      track.request !== null &&
      !abandoned &&
      (track.lastId === null || !this.cfg.clientResumes);
    if (lost) {
      track.reconnected = true;
      track.cursor = null;
      track.episodeT = this.now();
      const why = `${track.lastId === null ? CURSORLESS_END : NO_RESUMING_CLIENT}; ${adviceFor(track.request!.method)}`;
      const e = this.record(track, { type: 'reconnect', cursor: null }, {}, why);
      // No GET can come for it (none names it): nothing to refuse later.
      this.free(track);
      return e;
    } else if (track.lastId !== null) this.waitingWithCursor.push(track);
    else if (track.plain) this.waitingPlain.push(track);
    else this.free(track); // nothing names it: no reconnect can come for it
    return null;
  }

  /**
   * Refuses a GET for a failed stream with its error. The GET is recorded (a reconnect the
   * guard does not send: it stays unanswered, rule 1) so that the trace shows every refusal.
   */
  refuse(track: Track, cursor: number | null, stream?: string): StreamResumptionError {
    const error = track.failure!;
    const line = { type: 'reconnect', cursor, ...(stream ? { stream } : {}) } as const;
    this.emit(track, line);
    track.snapshot = this.settle(this.engine.step(track.snapshot, observationOf(line)!));
    // The decision recorded is the machine's on this unanswered GET (rule 1, or rule 0 without a
    // cursor); the error raised stays the stream's first one. (A machine passed through the
    // `machine` option that leaves no outcome: the line says the stream's failure.)
    this.emit(track, {
      type: 'decision',
      outcome: track.snapshot.context.outcome ?? error.outcome,
    });
    return error;
  }

  /**
   * Starts or continues the episode of a reconnect with `Last-Event-ID` (`restored`: the guard
   * put the stream's cursor back on a GET sent without one; its line says so).
   */
  reconnect(track: Track, lastEventId: string, restored: boolean): StreamResumptionError | null {
    const read = this.readId(lastEventId);
    // A poll (the same cursor after the server ended an unproven stream) goes on with its
    // episode and its budget (`record` checks it); any other reconnect closes the one before
    // and starts anew.
    // (The track was found by its last id, and no event came since the episode's reconnect,
    // so the cursor is the episode's.)
    const polling = stateOf(track.snapshot) === 'polling';
    // So does the budget (not the window) after a delayed reconnect with no event since.
    const keepsBudget = this.keepsBudget(track);
    const closed = this.close(track, polling);
    if (closed) return closed;
    this.remove(this.waitingWithCursor, track);
    if (read === null) {
      const error = new StreamResumptionError(
        `cursor ${JSON.stringify(lastEventId)} carries no readable sequence: continuity cannot be proven`,
        'unproven',
        'resumption-failed',
        this.failedCall(track),
      );
      this.options.onFailure?.(error);
      return this.enforce ? this.fail(track, error) : null;
    }
    track.reconnected = true;
    track.cursor = lastEventId;
    const t = this.now();
    if (!keepsBudget) track.episodeT = t;
    const e = this.record(
      track,
      { type: 'reconnect', cursor: read.seq, ...(read.stream ? { stream: read.stream } : {}) },
      restored ? { restored: true } : undefined,
    );
    if (!e) this.armBudget(track);
    return e;
  }

  /**
   * A new reconnect closes the judgement window of the one before (`settle`): still unproven
   * then, it has failed, and that failure is reported like any other. A poll with the same
   * cursor (`continues`) keeps its episode open: the machine judges it as part of it.
   */
  close(track: Track, continues: boolean): StreamResumptionError | null {
    return continues ? null : this.closeWindow(track);
  }

  /** A cursor from a stream the guard did not see: the track starts from what it claims. */
  unseen(lastEventId: string, scope: string): Track {
    const track = this.newTrack(null, scope);
    const read = this.readId(lastEventId);
    this.emit(track, { type: 'open', status: 200, unseen: true });
    track.snapshot = this.engine.step(track.snapshot, { type: 'OPEN', status: 200 });
    if (read) {
      const ev = {
        type: 'event',
        id: read.seq,
        ...(read.stream ? { stream: read.stream } : {}),
      } as const;
      this.emit(track, { ...ev, unseen: true });
      track.snapshot = this.engine.step(track.snapshot, observationOf(ev)!);
    }
    this.remember(track, lastEventId);
    return track;
  }

  admit() {
    if (this.tracks.size + this.reserved >= this.cfg.maxStreams)
      throw new GuardCapacityError(this.cfg.maxStreams);
  }

  /** A request that may open a new stream (a POST, or a GET that resumes nothing). */
}
