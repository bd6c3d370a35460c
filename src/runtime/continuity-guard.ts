/**
 * `continuityGuard(fetch, options)`: a `fetch` wrapper for the MCP SDK client transport's
 * `fetch` option (`StreamableHTTPClientTransport(url, { fetch })`) that applies the client
 * machine's decision to every stream and every resumption, and errors a stream with
 * {@link StreamResumptionError} instead of letting a gap through.
 *
 * The guard is a thin adapter: every HTTP-level fact (a status, a content type, a redirect, the
 * headers' arrival, a comment, an event, id-less data, an end, a disconnect, a timer) becomes
 * one trace line (format v1) and the one machine observation that line maps to
 * (`observationOf`); the machine (`model/client-machine.ts`, run by `step`/`settle` of
 * `model/run.ts`, compiled by `src/trace/engine.ts` as the trace checker runs it) decides. What the guard adds is runtime policy the model leaves to the
 * client: bounds on waits and memory, and refusing every later GET of a failed stream until the
 * application re-issues its call. docs/runtime.md lists every rule and bound.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { clientMachine, PENDING_STATES, type ClientStateName } from '../../model/client-machine.js';
import type { Observation } from '../../model/observations.js';
import { episodeGoesOn, isBudgeted } from '../../model/run.js';
import { StreamResumptionError, type FailedCall } from '../reference.js';
import { observationOf } from '../trace/checker.js';
import { engineFor, type MachineState } from '../trace/engine.js';
import type { TraceLine } from '../trace/format.js';
import {
  isSettledId,
  settledResponse,
  settlementEvent,
  settlementResponse,
} from './call-settlement.js';
import type { GuardMutantName } from './guard-mutant-names.js';
import { idOnlyBlocksAsPriming } from './id-only-blocks.js';
import { defaultIdReader } from './guard-ids.js';
import {
  ackFloor,
  callOf,
  headersOf,
  isEventStreamType,
  isRedirect,
  isRedirectStatus,
  isResponseMessage,
  methodOf,
  serialize,
  withBody,
  type Input,
} from './guard-wire.js';
import { configOf, type ContinuityGuardOptions, type GuardTraceLine } from './guard-options.js';

export type {
  ContinuityGuardOptions,
  GuardDecision,
  GuardTraceLine,
  IdReader,
} from './guard-options.js';
export { defaultIdReader, idReaderFromPattern } from './guard-ids.js';

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

const STATES = new WeakMap<object, () => GuardState>();

/** What the guard returned by {@link continuityGuard} holds now (`null`: not a guard). */
export function inspectGuard(guarded: typeof fetch): GuardState | null {
  return STATES.get(guarded)?.() ?? null;
}

/** The (flat) state a machine state is in. */
function stateOf(state: MachineState): ClientStateName {
  return state.value as ClientStateName;
}

/** `true` while a reconnect is still being judged (as `isPending` of model/run.ts). */
function isPending(state: MachineState): boolean {
  return PENDING_STATES.includes(stateOf(state));
}

/** One followed stream: a request's stream (or the standalone GET) and its resumptions. */
interface Track {
  id: number;
  snapshot: MachineState;
  /** The last id delivered: the key a later `Last-Event-ID` names. */
  lastId: string | null;
  /** The JSON-RPC response of its request arrived: nothing more is owed. */
  completed: boolean;
  /** The standalone GET stream: reconnects without a cursor until it received an id. */
  plain: boolean;
  /** Set when the stream failed: every later GET for it is refused with this error. */
  failure: StreamResumptionError | null;
  /** The request it answers (method and params), to see the application re-issue it. */
  call: string | null;
  /** The JSON-RPC request it answers, as sent (`null`: the standalone stream). */
  request: Record<string, unknown> | null;
  /** The `Last-Event-ID` of the current reconnect (`null`: none, or a reconnect without one). */
  cursor: string | null;
  /** The guard ended the call with its error response: later reconnects get a 405. */
  settled: boolean;
  /** A reconnect was made on this track (decision lines follow reconnects only). */
  reconnected: boolean;
  /** `t` of the current episode's first reconnect. */
  episodeT: number;
  /** The proof budget of the current episode. */
  budget?: NodeJS.Timeout;
  /** A resume's 200 not yet fed to the machine: it waits for the first SSE item (an ack?). */
  held: boolean;
  /** Errors the stream being read, when the budget runs out on it. */
  giveUp?: (e: StreamResumptionError) => void;
}

type Body = ReadableStream<Uint8Array>;

/** Why a request's stream that ended without its response and without an id fails its call. */
const CURSORLESS_END =
  'the stream ended before its response and named no event to resume from (no SSE id: a 2026-07-28 server, or a server without an event store), so nothing can resume it; re-issue the call as a new request';

/**
 * Wraps `fetchFn` so that every SSE stream the MCP client reads is checked by the client
 * machine: the first stream of a request must be gap-free; a resumption (GET with
 * `Last-Event-ID`) must be proven by a replay acknowledgment with a floor covering the cursor
 * or by a first event whose id is the cursor's successor, on a `200` answer with
 * `text/event-stream`; a reconnect without `Last-Event-ID` after events were received is
 * refused. When continuity cannot be proven the response body errors with
 * {@link StreamResumptionError} (the SDK reports it through `onerror`), or, for a reconnect
 * refused before any body, the fetch itself rejects with it; every later GET for that stream
 * is refused with the same error until the application re-issues the call.
 *
 * @category Runtime
 * @example
 * ```ts
 * import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
 * import { continuityGuard } from 'mcp-resumption/runtime';
 *
 * const transport = new StreamableHTTPClientTransport(new URL('http://127.0.0.1:8080/mcp'), {
 *   fetch: continuityGuard(fetch, {
 *     idleTimeoutMs: 60_000, // above the server's keepalive interval
 *     onFailure: (e) => console.error(`resumption failed (${e.message}): re-issue the call`),
 *   }),
 * });
 * ```
 */
export function continuityGuard(
  fetchFn: typeof fetch,
  options: ContinuityGuardOptions = {},
): typeof fetch {
  // A deployed guard never runs a mutant, whatever the options object carries at run time.
  return guardWith(fetchFn, options, undefined);
}

/**
 * The guard, with one of its mutants put back (`mutantGuard` in src/runtime-mutants/guard-mutants.ts, for the
 * runtime's property suite) or none (`continuityGuard`).
 * @internal
 */
export function guardWith(
  fetchFn: typeof fetch,
  options: ContinuityGuardOptions,
  mutant: GuardMutantName | undefined,
): typeof fetch {
  const cfg = configOf(options);
  const readId = options.readId ?? defaultIdReader;
  const machine = options.machine ?? clientMachine;
  // The machine runs compiled, as the trace checker runs it (xstate's own transition() costs
  // about 0.2 ms a step, more than the network for an event); both take the same steps.
  const engine = engineFor(machine);
  /** Closes a pending judgement window, as `settle` of model/run.ts does. */
  const settle = (state: MachineState): MachineState =>
    isPending(state) ? engine.step(state, { type: 'PROOF_TIMEOUT' }) : state;
  const { enforce } = cfg;
  const t0 = Date.now();
  let nextTrackId = 1;
  /** Every stream followed (the memory the cap bounds). */
  const tracks = new Set<Track>();
  /** Requests sent that may open a stream: they hold a place under the cap. */
  let reserved = 0;
  const byLastId = new Map<string, Track>();
  /** Interrupted streams that hold a cursor: a GET without one has dropped it (rule 0). */
  const waitingWithCursor: Track[] = [];
  /** Interrupted standalone streams that never received an id: they reconnect without one. */
  const waitingPlain: Track[] = [];
  /** Failed streams, latest last: GETs without a cursor are theirs until the re-issue. */
  const failed: Track[] = [];

  STATES.set(guarded, () => ({
    streams: tracks.size,
    failed: failed.length,
    owed: waitingWithCursor.length + waitingPlain.length,
    pending: [...tracks].filter((t) => isPending(t.snapshot)).length,
  }));

  const remove = (list: Track[], track: Track) => {
    const at = list.indexOf(track);
    if (at >= 0) list.splice(at, 1);
  };

  /** What a failure reports of the track's call, and where its stream stood. */
  const failedCall = (track: Track): FailedCall => {
    const named = track.cursor ?? track.lastId;
    const id = track.request?.id;
    const method = track.request?.method;
    return {
      requestId: typeof id === 'string' || typeof id === 'number' ? id : null,
      method: typeof method === 'string' ? method : null,
      request: track.request,
      stream: (named !== null ? readId(named)?.stream : undefined) ?? null,
      cursor: track.reconnected ? track.cursor : null,
      lastDelivered: track.lastId,
    };
  };

  /**
   * The failure that ends the track's call now, if the call still waits for its response and
   * the guard enforces (`null`: nothing to end). It ends a call once: its later reconnects get
   * a 405 ({@link settledResponse}).
   */
  const settlement = (track: Track, e: unknown): StreamResumptionError | null => {
    if (!(e instanceof StreamResumptionError) || !enforce || cfg.endCalls !== 'respond')
      return null;
    if (track.request === null || track.completed || track.settled) return null;
    track.settled = true;
    return e;
  };

  /**
   * The answer to a request of a failed track: the call's error response as a stream (the SDK
   * rejects the call at once, and stops reconnecting), a 405 once the call was ended, or the
   * error itself for a stream that owes no call (the standalone stream, or observe-only).
   */
  const failedAnswer = (track: Track, e: StreamResumptionError): Response => {
    if (track.settled) return settledResponse();
    const ending = settlement(track, e);
    if (ending) return settlementResponse(ending, track.id);
    throw e;
  };

  /** Drops the cursor a track holds from `byLastId`, unless a later stream holds it now. */
  const forget = (track: Track) => {
    if (track.lastId !== null && byLastId.get(track.lastId) === track)
      byLastId.delete(track.lastId);
  };

  /** Forgets a stream: its response arrived and it ended, or its call was re-issued. */
  const free = (track: Track) => {
    if (mutant === 'keeps-completed-streams' && track.failure === null) return;
    clearTimeout(track.budget);
    tracks.delete(track);
    forget(track);
    remove(waitingWithCursor, track);
    remove(waitingPlain, track);
    remove(failed, track);
  };

  const newTrack = (call: ReturnType<typeof callOf>): Track => {
    const track: Track = {
      id: nextTrackId++,
      snapshot: engine.initial(),
      lastId: null,
      completed: false,
      plain: false,
      failure: null,
      call: call?.key ?? null,
      request: call?.request ?? null,
      cursor: null,
      settled: false,
      reconnected: false,
      episodeT: 0,
      held: false,
    };
    tracks.add(track);
    return track;
  };

  /** The time of the latest line: a decision carries the time of the line that led to it. */
  let lastT = 0;
  const now = () => (lastT = Date.now() - t0);
  const emit = (track: Track, line: Record<string, unknown>, t?: number) => {
    if (!options.onTrace) return;
    const at = t ?? (line.type === 'decision' ? lastT : now());
    options.onTrace({ ...line, t: at } as GuardTraceLine, track.id);
  };

  /**
   * Feeds one observation to the track's machine; reports decisions; returns the error to raise
   * when the machine escalated (only when enforcing).
   */
  const decide = (track: Track, o: Observation, why?: string): StreamResumptionError | null => {
    const prev = stateOf(track.snapshot);
    track.snapshot = engine.step(track.snapshot, o);
    const state = stateOf(track.snapshot);
    const ctx = track.snapshot.context;
    const escalated = (state === 'resumptionFailed' || state === 'sessionLost') && state !== prev;
    if (!isBudgeted(track.snapshot)) clearTimeout(track.budget);
    // A decision about a reconnect: taken on the reconnect itself, or while it is judged
    // (pending, or delayed until an event proves it). An escalation inside a stream already
    // accepted is a break of that stream, not a decision about its reconnect.
    const judged = o.type === 'RECONNECT' || PENDING_STATES.includes(prev) || prev === 'delayed';
    if (judged && state !== prev && ctx.outcome !== null) {
      const outcome = ctx.outcome;
      if (enforce && track.reconnected) emit(track, { type: 'decision', outcome });
      options.onDecision?.({ outcome, reason: ctx.reason, cursor: track.lastId });
    } else if (state === 'polling' && prev !== 'polling' && enforce) {
      // The server ended an unproven resumed stream: the guard waits for the next poll.
      emit(track, { type: 'decision', outcome: 'delayed' });
    }
    if (!escalated) return null;
    const error = new StreamResumptionError(
      why ?? ctx.reason?.text ?? 'continuity cannot be proven',
      ctx.reason?.code ?? 'unproven',
      state === 'sessionLost' ? 'session-lost' : 'resumption-failed',
      failedCall(track),
    );
    options.onFailure?.(error);
    return enforce ? fail(track, error) : null;
  };

  /** The stream failed: every later GET for it is refused with `error` until the re-issue. */
  const fail = (track: Track, error: StreamResumptionError): StreamResumptionError => {
    track.failure ??= error;
    remove(waitingWithCursor, track);
    remove(waitingPlain, track);
    // A stream already freed (its response arrived) owes nothing: nothing to refuse later.
    if (tracks.has(track) && !failed.includes(track)) failed.push(track);
    return track.failure;
  };

  /**
   * Records one trace line and feeds the machine its observation through the format's own
   * mapping (`observationOf`), so that what the guard decides on and what it records cannot
   * drift apart. While an episode is budgeted (pending or delayed), its budget is checked first
   * against the line's time, as the trace checker does with `proofBudget`, a reconnect's line
   * included: a poll, or a reconnect of a delayed stream, made after the budget ran out (its
   * timer not run yet) is refused before it is sent.
   */
  const record = (
    track: Track,
    line: Exclude<TraceLine, { type: 'decision' }>,
    extra: Record<string, unknown> = {},
    why?: string,
  ): StreamResumptionError | null => {
    const t = now();
    if (overBudget(track, t)) {
      const e = budgetRunsOut(track);
      if (e) return e;
    }
    emit(track, { ...line, ...extra }, t);
    if (!enforce && line.type === 'response' && track.reconnected) {
      // Observe-only: what a bare client decides is to accept any 200 answer.
      const outcome = line.status === 200 ? 'resumed' : 'resumption-failed';
      emit(track, { type: 'decision', outcome });
    }
    return decide(track, observationOf(line) as Observation, why);
  };

  /**
   * The current episode's budget has run out at `t`. (Only a reconnect makes the machine
   * budgeted: a first stream is never judged against a budget.)
   */
  const overBudget = (track: Track, t: number) =>
    isBudgeted(track.snapshot) && t - track.episodeT > cfg.proofTimeoutMs;

  /**
   * The episode's budget ran out (called on a budgeted track only: `overBudget`, or its timer,
   * which `decide` clears as soon as the machine leaves the budgeted states). A held answer is
   * fed as it is: its own line, over the budget too, comes back here unheld. Between polls, and
   * on a delayed stream (rule 7.1), the machine's timer fires (`PROOF_TIMEOUT`); a stream still
   * pending is given up (a disconnect). A stream being read is then given up with the error.
   */
  const budgetRunsOut = (track: Track): StreamResumptionError | null => {
    clearTimeout(track.budget);
    now();
    if (track.held) {
      // A timer that fired a little early by the wall clock leaves the answer judged in time:
      // the budget still ends the episode.
      const e = answer(track);
      if (e || !isBudgeted(track.snapshot)) return e;
    }
    const state = stateOf(track.snapshot);
    let e: StreamResumptionError | null;
    if (state === 'polling' || state === 'delayed') {
      e = decide(track, { type: 'PROOF_TIMEOUT' });
    } else {
      emit(track, { type: 'disconnect' });
      e = decide(track, { type: 'DISCONNECT' });
    }
    // (Between polls no body is being read: `giveUp` is unset.)
    if (e) track.giveUp?.(e);
    return e;
  };

  const armBudget = (track: Track) => {
    clearTimeout(track.budget);
    const left = Math.max(0, track.episodeT + cfg.proofTimeoutMs - now() + 1);
    track.budget = setTimeout(() => budgetRunsOut(track), left);
    track.budget.unref?.();
  };

  /** Feeds a held 200 to the machine, with the floor of an acknowledgment if one came first. */
  const answer = (track: Track, floor?: number): StreamResumptionError | null => {
    track.held = false;
    return record(track, {
      type: 'response',
      status: 200,
      ...(floor !== undefined ? { floor } : {}),
    });
  };

  /** The id the client now holds: a later `Last-Event-ID` naming it resumes this track. */
  const remember = (track: Track, id: string) => {
    if (!tracks.has(track)) return; // freed: its response arrived
    forget(track);
    track.lastId = id;
    byLastId.set(id, track);
  };

  /**
   * A stream ended or broke: a completed one is forgotten, an interrupted one is owed a
   * reconnect. A request's stream that holds no cursor cannot be resumed (a 2026-07-28 server
   * sends no ids; so does a 2025-11-25 server without an event store): for the machine that is
   * a reconnect without a cursor, a failed resumption (rule 0), and the call it owed ends now
   * (returned: the error to end it with) instead of waiting for a response that cannot come.
   */
  const streamEnded = (track: Track, abandoned = false): StreamResumptionError | null => {
    track.giveUp = undefined;
    if (track.failure) return null;
    if (track.completed) {
      free(track);
      return null;
    }
    if (track.lastId !== null) waitingWithCursor.push(track);
    else if (track.plain) waitingPlain.push(track);
    else if (enforce && track.request !== null && !abandoned) {
      track.reconnected = true;
      track.cursor = null;
      track.episodeT = now();
      const e = record(track, { type: 'reconnect', cursor: null }, {}, CURSORLESS_END);
      // No GET can come for it (none names it): nothing to refuse later.
      free(track);
      return e;
    } else free(track); // nothing names it: no reconnect can come for it
    return null;
  };

  /**
   * Refuses a GET for a failed stream with its error. The GET is recorded (a reconnect the
   * guard does not send: it stays unanswered, rule 1) so that the trace shows every refusal.
   */
  const refuse = (track: Track, cursor: number | null, stream?: string): StreamResumptionError => {
    const error = track.failure!;
    const line = { type: 'reconnect', cursor, ...(stream ? { stream } : {}) } as const;
    emit(track, line);
    track.snapshot = settle(engine.step(track.snapshot, observationOf(line)!));
    // The decision recorded is the machine's on this unanswered GET (rule 1, or rule 0 without a
    // cursor); the error raised stays the stream's first one.
    emit(track, {
      type: 'decision',
      outcome: track.snapshot.context.outcome ?? 'resumption-failed',
    });
    return error;
  };

  const guardBody = (track: Track, source: Body, signal?: AbortSignal | null): Body => {
    const reader = source.getReader();
    const encoder = new TextEncoder();
    const decoder = new TextDecoder();
    /** Text accepted and not yet handed on: one chunk per read, not one per event. */
    let out: string[] = [];
    let failure: Error | null = null;
    /** `comment-ends-first-check` mutant: a comment came before the first event. */
    let commentFirst = false;
    let isEnded = false;
    let controllerRef: ReadableStreamDefaultController<Uint8Array> | undefined;

    /** The first error wins; `null` (nothing went wrong) changes nothing. */
    const stop = (e: Error | null) => {
      failure ??= e;
    };

    /**
     * Ends the body on its failure: with the call's error response and a clean end when the
     * stream owed its call a response (the SDK rejects the call at once), else with the error.
     */
    const failWith = (controller: ReadableStreamDefaultController<Uint8Array>, e: unknown) => {
      const ending = settlement(track, e);
      if (!ending) return controller.error(e);
      try {
        controller.enqueue(encoder.encode(settlementEvent(ending, track.id)));
        controller.close();
      } catch {
        // Already closed or errored (the caller cancelled the body): nothing is waiting.
      }
    };
    const forward = (text: string) => out.push(text);

    /** Every SSE item first feeds a held answer: no item can skip or postpone the first-event check. */
    const first = (floor?: number) => {
      if (track.held) stop(answer(track, floor));
    };

    /**
     * The stream failed through another request (a later reconnect closed this one's window, or
     * a refused GET): this body, still open, hands on nothing more.
     */
    const refusedElsewhere = () => stop(track.failure); // (only set when enforcing)

    /** The response arrived: nothing more is owed, no reconnect can come for this stream. */
    const responded = (ev: EventSourceMessage) => {
      if (!isResponseMessage(ev.data)) return;
      track.completed = true;
      if (!track.plain) free(track);
    };

    const parser = createParser({
      maxBufferSize: cfg.maxEventBytes,
      onError: (err) => {
        if (err.type === 'max-buffer-size-exceeded') {
          stop(new Error(`SSE event larger than ${cfg.maxEventBytes} bytes`));
        }
      },
      onRetry: (ms) => {
        const clamped =
          mutant === 'retry-unclamped'
            ? ms
            : Math.min(cfg.maxRetryMs, Math.max(cfg.minRetryMs, ms));
        forward(`retry: ${clamped}\n\n`);
      },
      onComment: (c) => {
        refusedElsewhere();
        if (failure) return;
        if (track.held && mutant === 'comment-ends-first-check') commentFirst = true;
        first();
        if (failure) return;
        stop(record(track, { type: 'keepalive' }));
        forward(`:${c}\n\n`);
      },
      onEvent: (ev) => {
        refusedElsewhere();
        if (failure) return;
        const floor = track.held ? ackFloor(ev) : undefined;
        first(floor);
        if (failure) return;
        if (floor !== undefined) return forward(serialize(ev));
        if (!ev.id) {
          // Id-less data: delivered, but no Last-Event-ID can name it (rule 0, rule 6). It may
          // be the response itself (a 2026-07-28 server sends no ids).
          stop(record(track, { type: 'event' }));
          if (failure) return;
          // (The standalone stream stays followed until it ends: it reconnects without a cursor.)
          if (!track.plain) responded(ev);
          return forward(serialize(ev));
        }
        const read = readId(ev.id);
        if (read === null) {
          if (track.reconnected && enforce) {
            const e = new StreamResumptionError(
              `event id ${JSON.stringify(ev.id)} carries no readable sequence: continuity cannot be proven`,
              'unproven',
              'resumption-failed',
              failedCall(track),
            );
            options.onFailure?.(e);
            return stop(fail(track, e));
          }
          // A first stream with opaque ids: nothing to check yet (it proves nothing, like a
          // keepalive); a later reconnect from such a cursor cannot be proven and is refused.
          stop(record(track, { type: 'keepalive' }, { opaqueId: ev.id }));
        } else if (commentFirst) {
          commentFirst = false; // the mutant: this event is not judged
          emit(track, {
            type: 'event',
            id: read.seq,
            ...(read.stream ? { stream: read.stream } : {}),
          });
        } else {
          stop(
            record(track, {
              type: 'event',
              id: read.seq,
              ...(read.stream ? { stream: read.stream } : {}),
            }),
          );
        }
        if (failure) return;
        remember(track, ev.id);
        responded(ev);
        forward(serialize(ev));
      },
    });

    const rewrite = idOnlyBlocksAsPriming(cfg.maxEventBytes);
    const feed = (text: string) => {
      try {
        parser.feed(rewrite(text));
      } catch (e) {
        stop(e as Error);
      }
    };

    const ended = (how: 'end' | 'disconnect') => {
      if (isEnded) return;
      isEnded = true;
      release();
      if (!failure) first();
      if (!failure) stop(record(track, { type: how }));
      stop(streamEnded(track, abandoned));
    };

    /** The application gave the body up (an abort, a cancel): no call is waiting on it. */
    let abandoned = false;
    // The caller aborts (the SDK closing its transport): the body is given up.
    const abort = () => {
      abandoned = true;
      reader.cancel(signal!.reason).catch(() => {});
    };
    signal?.addEventListener('abort', abort, { once: true });
    const release = () => signal?.removeEventListener('abort', abort);

    track.giveUp = (e) => {
      stop(e);
      ended('disconnect'); // (failed: it records nothing)
      failWith(controllerRef!, e);
      reader.cancel().catch(() => {});
    };

    return new ReadableStream<Uint8Array>(
      {
        start(controller) {
          controllerRef = controller;
        },
        async pull(controller) {
          for (;;) {
            if (out.length > 0) {
              controller.enqueue(encoder.encode(out.join('')));
              out = [];
              return;
            }
            if (failure) {
              ended('disconnect');
              reader.cancel().catch(() => {});
              failWith(controller, failure);
              return;
            }
            let idle: NodeJS.Timeout | undefined;
            let settled = false;
            const read = reader.read();
            const timed =
              cfg.idleTimeoutMs > 0
                ? Promise.race([
                    read,
                    new Promise<'idle'>((r) => {
                      // The timer measures the network, not the application: when it fires
                      // late, the event loop was busy (the bytes may be waiting unread), so
                      // it starts again instead of declaring the stream idle.
                      const arm = () => {
                        if (settled) return;
                        const armedAt = Date.now();
                        idle = setTimeout(() => {
                          const late = Date.now() - armedAt - cfg.idleTimeoutMs;
                          const busy = late > Math.max(20, cfg.idleTimeoutMs / 4);
                          if (busy && cfg.idleClock === 'network') setImmediate(arm);
                          else r('idle');
                        }, cfg.idleTimeoutMs);
                      };
                      arm();
                    }),
                  ])
                : read;
            let result: Awaited<typeof read> | 'idle';
            try {
              result = await timed;
            } catch (e) {
              if (isEnded && failure) return; // given up while the read was pending
              ended('disconnect');
              failWith(controller, failure ?? e);
              return;
            } finally {
              settled = true;
              clearTimeout(idle);
            }
            if (isEnded && failure) return; // given up while the read was pending
            if (result === 'idle') {
              // (No failure is set here: a failed body stops before its next read.)
              read.catch(() => {});
              first();
              if (!failure) stop(record(track, { type: 'idle-timeout' }));
              ended('disconnect');
              reader.cancel().catch(() => {});
              failWith(
                controller,
                failure ?? new Error(`idle timeout: no bytes for ${cfg.idleTimeoutMs} ms`),
              );
              return;
            }
            if (result.done) {
              // (The flush completes no line, so nothing more is queued: `out` is empty here.)
              feed(decoder.decode());
              ended('end');
              if (failure) failWith(controller, failure);
              else controller.close();
              return;
            }
            feed(decoder.decode(result.value, { stream: true }));
          }
        },
        cancel(reason) {
          abandoned = true;
          ended('disconnect');
          return reader.cancel(reason);
        },
      },
      { highWaterMark: 0 },
    );
  };

  /** Sends a request with a bound on its headers; `what` names the bound in the error. */
  const send = async (
    input: Input,
    init: RequestInit | undefined,
    ms: number,
    what: string,
  ): Promise<Response> => {
    if (ms === 0) return fetchFn(input, init);
    // Not AbortSignal.any: on Node 20 every composite signal stays reachable from its sources
    // (about 1.9 KB per request, never freed). The caller's signal is forwarded by hand while
    // the headers are awaited; a guarded body listens to it itself (guardBody).
    const bound = new AbortController();
    const outer = init?.signal ?? undefined;
    const forward = () => bound.abort(outer!.reason);
    if (outer?.aborted) forward();
    else outer?.addEventListener('abort', forward); // removed below, whatever happens
    const timer = setTimeout(() => bound.abort(new Error(what)), ms);
    try {
      return await fetchFn(input, { ...init, signal: bound.signal });
    } catch (e) {
      throw bound.signal.aborted && !outer?.aborted
        ? new Error(`continuityGuard: ${what}`, { cause: e })
        : e;
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', forward);
    }
  };

  /** A reconnect of `track`: sent with `redirect: 'manual'`, its answer judged by the machine. */
  const resume = async (track: Track, input: Input, init: RequestInit | undefined) => {
    const manual = mutant === 'follows-redirects' ? init : { ...init, redirect: 'manual' as const };
    let response: Response;
    try {
      response = await send(
        input,
        manual,
        cfg.responseTimeoutMs,
        `no answer in ${cfg.responseTimeoutMs} ms`,
      );
    } catch (e) {
      if (isPending(track.snapshot)) {
        const err = record(track, { type: 'disconnect' });
        if (err) return failedAnswer(track, err);
      }
      throw e;
    }
    if (track.failure) {
      // The budget ran out while the headers were on their way.
      response.body?.cancel().catch(() => {});
      return failedAnswer(track, track.failure);
    }
    const redirect =
      mutant === 'follows-redirects' ? isRedirectStatus(response.status) : isRedirect(response);
    const type = response.headers.get('content-type');
    const isSse = isEventStreamType(type);
    const refused = (e: StreamResumptionError | null) => {
      if (!e) return response;
      response.body?.cancel().catch(() => {});
      return failedAnswer(track, e);
    };
    if (redirect) {
      // A redirect proves nothing about this server's log (rule 3); a runtime that hides the
      // status (opaqueredirect, or a redirect fetch followed anyway) is recorded as status 0.
      const status = isRedirectStatus(response.status) ? response.status : 0;
      return refused(record(track, { type: 'response', status }, { redirect: true }));
    }
    if (response.status !== 200)
      return refused(record(track, { type: 'response', status: response.status }));
    if (!isSse || !response.body) {
      if (mutant === 'non-sse-unjudged') return response;
      // Only a 200 with text/event-stream can prove a resume: any other body is not read as
      // SSE. The guard drops it (a disconnect after the 200): the machine says unproven.
      const e = record(track, { type: 'response', status: 200 }, { contentType: type });
      if (e) return refused(e);
      if (!enforce) return response;
      return refused(record(track, { type: 'disconnect' }));
    }
    track.held = true;
    return withBody(response, guardBody(track, response.body, init?.signal));
  };

  /** Starts or continues the episode of a reconnect with `Last-Event-ID`. */
  const reconnect = (track: Track, lastEventId: string): StreamResumptionError | null => {
    const read = readId(lastEventId);
    // A poll (the same cursor after the server ended an unproven stream) goes on with its
    // episode and its budget (`record` checks it); any other reconnect closes the one before
    // and starts anew.
    // (The track was found by its last id, and no event came since the episode's reconnect,
    // so the cursor is the episode's.)
    const polling = stateOf(track.snapshot) === 'polling';
    // So does the budget (not the window) after a delayed reconnect with no event since.
    const keepsBudget = episodeGoesOn(track.snapshot);
    const closed = close(track, polling);
    if (closed) return closed;
    remove(waitingWithCursor, track);
    if (read === null) {
      const error = new StreamResumptionError(
        `cursor ${JSON.stringify(lastEventId)} carries no readable sequence: continuity cannot be proven`,
        'unproven',
        'resumption-failed',
        failedCall(track),
      );
      options.onFailure?.(error);
      return enforce ? fail(track, error) : null;
    }
    track.reconnected = true;
    track.cursor = lastEventId;
    const t = now();
    if (!keepsBudget || mutant === 'budget-per-poll') track.episodeT = t;
    const e = record(track, {
      type: 'reconnect',
      cursor: read.seq,
      ...(read.stream ? { stream: read.stream } : {}),
    });
    if (!e) armBudget(track);
    return e;
  };

  /**
   * A new reconnect closes the judgement window of the one before (`settle`): still unproven
   * then, it has failed, and that failure is reported like any other. A poll with the same
   * cursor (`continues`) keeps its episode open: the machine judges it as part of it.
   */
  const close = (track: Track, continues: boolean): StreamResumptionError | null => {
    if (continues) return null;
    const settled = settle(track.snapshot);
    return settled === track.snapshot ? null : decide(track, { type: 'PROOF_TIMEOUT' });
  };

  /** A cursor from a stream the guard did not see: the track starts from what it claims. */
  const unseen = (lastEventId: string): Track => {
    const track = newTrack(null);
    const read = readId(lastEventId);
    emit(track, { type: 'open', status: 200, unseen: true });
    track.snapshot = engine.step(track.snapshot, { type: 'OPEN', status: 200 });
    if (read) {
      const ev = {
        type: 'event',
        id: read.seq,
        ...(read.stream ? { stream: read.stream } : {}),
      } as const;
      emit(track, { ...ev, unseen: true });
      track.snapshot = engine.step(track.snapshot, observationOf(ev)!);
    }
    remember(track, lastEventId);
    return track;
  };

  const admit = () => {
    if (tracks.size + reserved >= cfg.maxStreams) throw new GuardCapacityError(cfg.maxStreams);
  };

  /** A request that may open a new stream (a POST, or a GET that resumes nothing). */
  const open = async (
    method: string,
    input: Input,
    init: RequestInit | undefined,
    call: ReturnType<typeof callOf>,
    plain: boolean,
  ) => {
    admit();
    reserved++;
    let response: Response;
    try {
      response = await send(
        input,
        method === 'GET' && mutant !== 'follows-redirects' ? { ...init, redirect: 'manual' } : init,
        cfg.firstHeadersTimeoutMs,
        `no response headers in ${cfg.firstHeadersTimeoutMs} ms (firstHeadersTimeoutMs)`,
      );
    } finally {
      reserved--;
    }
    const type = response.headers.get('content-type') ?? '';
    const isSse = isEventStreamType(type);
    if (method === 'GET' && response.status === 200 && !isSse && mutant !== 'non-sse-unjudged') {
      // The SDK clients read any 200 GET body as SSE: one that is not SSE is never handed on.
      response.body?.cancel().catch(() => {});
      throw new Error(
        `continuityGuard: a GET answered 200 with content type ${JSON.stringify(type)} is not an SSE stream; refused`,
      );
    }
    // (Only POSTs and GETs come here: other methods are passed through by `guarded`.)
    if (response.status !== 200 || !isSse || !response.body) return response;
    const track = newTrack(call);
    track.plain = plain;
    record(track, { type: 'open', status: 200 });
    return withBody(response, guardBody(track, response.body, init?.signal));
  };

  async function guarded(input: Input, init?: RequestInit): Promise<Response> {
    const method = methodOf(input, init);
    const lastEventId = headersOf(input, init).get('last-event-id');
    if (method === 'POST') {
      const call = callOf(init?.body);
      // The application re-issued a failed call (or started a new session): its stream is free.
      for (const t of [...failed])
        if (call !== null && (call.key.startsWith('initialize ') || t.call === call.key)) free(t);
      return open(method, input, init, call, false);
    }
    if (method !== 'GET') return fetchFn(input, init);
    if (lastEventId) {
      // The SDK reconnecting after the event that ended its call: nothing to send.
      if (isSettledId(lastEventId) && enforce) return settledResponse();
      const known = byLastId.get(lastEventId);
      if (known?.failure) {
        const read = readId(lastEventId);
        return failedAnswer(known, refuse(known, read?.seq ?? null, read?.stream));
      }
      if (!known) admit();
      const track = known ?? unseen(lastEventId);
      const e = reconnect(track, lastEventId);
      if (e) return failedAnswer(track, e);
      // A reconnect that failed the stream returned its error (failures are only set when
      // enforcing); and `resume` refuses a track failed while the headers were on their way.
      return resume(track, input, init);
    }
    // A GET without Last-Event-ID.
    const lastFailed = mutant === 'cursorless-retry-is-new' ? undefined : failed[failed.length - 1];
    if (lastFailed) return failedAnswer(lastFailed, refuse(lastFailed, null));
    const plain = waitingPlain.shift();
    if (plain) free(plain);
    else if (waitingWithCursor.length > 0) {
      // A reconnect that dropped the cursor of an interrupted stream (rule 0).
      const track = waitingWithCursor.pop()!;
      const e0 = close(track, false);
      if (e0) return failedAnswer(track, e0);
      track.reconnected = true;
      track.cursor = null;
      track.episodeT = now();
      const e = record(track, { type: 'reconnect', cursor: null });
      if (e) return failedAnswer(track, e);
    }
    return open(method, input, init, null, true);
  }
  return guarded as typeof fetch;
}
