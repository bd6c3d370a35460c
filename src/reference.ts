/**
 * A TypeScript port of the seed's reference implementation
 * (the founding essay; its incident is told in docs/incident.md), same shape and same semantics, with one correction:
 * a first event at or below the cursor is reported as a *rewind* (the seed's message reports a
 * negative skip count). The other difference from the model (a declared floor never lets the
 * client wait here: an empty stream always fails) is kept on purpose and listed in
 * docs/deviations.md. It judges one reconnect and has no word for id-less data: the rule 0.3
 * taint (set by data delivered on an accepted stream, before proof or after a failed
 * reconnect) is kept around it by the adapter that runs it against the machine
 * (properties/machine/reference-adapter.ts, "Mapping the seed's vocabulary" in deviations.md).
 */
import type { Outcome, ReasonCode } from '../model/outcomes.js';

/**
 * Which call a failed stream owed a response to, and where its stream stood: enough for an
 * application with several calls in flight to re-issue the right one, or to surface a partial
 * result for it.
 */
export interface FailedCall {
  /** The JSON-RPC id of the request whose response the stream owed (`null`: no request, the standalone stream). */
  readonly requestId: string | number | null;
  /** The request's method (`null`: the standalone stream). */
  readonly method: string | null;
  /** The original JSON-RPC request, as sent, to re-issue it (`null`: not known). */
  readonly request: Readonly<Record<string, unknown>> | null;
  /** The stream the reconnect resumed, as its event ids name it (`null`: not named). */
  readonly stream: string | null;
  /** The `Last-Event-ID` the failing reconnect carried (`null`: a reconnect without one). */
  readonly cursor: string | null;
  /** The id of the last event the application was handed on this stream (`null`: none). */
  readonly lastDelivered: string | null;
}

/** Raised when a reconnect cannot prove replay continuity from the client cursor. */
export class StreamResumptionError extends Error {
  /** The escalation the failure calls for. */
  readonly outcome: Extract<Outcome, 'resumption-failed' | 'session-lost'>;
  /** The rule that failed (shared with the model's reason codes). */
  readonly code: ReasonCode;
  /** The call the failed stream owed a response to, when the guard knows it. */
  readonly call: FailedCall | null;

  constructor(
    message: string,
    code: ReasonCode,
    outcome: Extract<Outcome, 'resumption-failed' | 'session-lost'> = 'resumption-failed',
    call: FailedCall | null = null,
  ) {
    super(message);
    this.name = 'StreamResumptionError';
    this.code = code;
    this.outcome = outcome;
    this.call = call;
  }

  /** The call's JSON-RPC request id (`null`: not known, or the standalone stream). */
  get requestId(): string | number | null {
    return this.call?.requestId ?? null;
  }

  /** The call's method (`null`: not known, or the standalone stream). */
  get method(): string | null {
    return this.call?.method ?? null;
  }

  /** The original request, to re-issue it (`null`: not known). */
  get request(): Readonly<Record<string, unknown>> | null {
    return this.call?.request ?? null;
  }
}

/** An SSE event with a numeric id. */
export interface Event {
  readonly id: number;
  readonly kind: string;
  readonly payload: Record<string, unknown>;
}

/** What the client learned from one reconnect. */
export interface ReconnectResult {
  readonly httpStatus: number;
  /** Lowest id the server can still replay, if declared. */
  readonly replayFloor: number | null;
  readonly firstEvent: Event | null;
  readonly sessionDurable: boolean;
}

/**
 * Decides whether a reconnect is a valid resumption from `cursor`.
 *
 * @throws {@link StreamResumptionError} when the server cannot prove that the next event it
 *   delivers is the immediate successor of the client's cursor.
 */
export function verifyResumption(
  cursor: number,
  result: ReconnectResult,
  retainedFloor: number | null = null,
): Event {
  if (result.httpStatus === 404 || result.httpStatus === 410) {
    throw new StreamResumptionError(
      `session lost: status=${result.httpStatus}; re-initialize required`,
      'session-gone',
      'session-lost',
    );
  }
  if (result.httpStatus !== 200) {
    throw new StreamResumptionError(
      `unexpected reconnect status=${result.httpStatus}`,
      'bad-status',
    );
  }
  const floor = result.replayFloor !== null ? result.replayFloor : retainedFloor;
  if (floor !== null && cursor < floor - 1) {
    // Cursor is older than the retained window: the gap is unreplayable.
    throw new StreamResumptionError(
      `cursor ${cursor} below replay floor ${floor}; events ${cursor + 1}..${floor - 1} are lost`,
      'cursor-below-floor',
    );
  }
  if (!result.sessionDurable) {
    // Implicit re-creation under the same session id looks like a live stream but has no
    // continuity guarantee.
    throw new StreamResumptionError(
      'session not durable across reconnect; implicit re-creation cannot honor Last-Event-ID',
      'not-durable',
    );
  }
  const ev = result.firstEvent;
  if (ev === null) {
    throw new StreamResumptionError(
      'reconnect returned an empty stream; cannot prove continuity',
      'unproven',
    );
  }
  if (ev.id <= cursor) {
    // Correction to the seed: its message would report a negative skip here.
    throw new StreamResumptionError(
      `replay rewind: expected event id ${cursor + 1}, got ${ev.id} ` +
        `(at or below cursor ${cursor}: a reset counter or a duplicate)`,
      'rewind',
    );
  }
  if (ev.id !== cursor + 1) {
    throw new StreamResumptionError(
      `replay gap: expected event id ${cursor + 1}, got ${ev.id}; ` +
        `silent skip of ${ev.id - cursor - 1} event(s)`,
      'skip',
    );
  }
  return ev;
}

/** Validates the resumption, then drains the remainder, asserting gap-free ids. */
export function drainWithContinuity(
  cursor: number,
  events: Iterable<Event>,
  result: ReconnectResult,
): Event[] {
  const first = verifyResumption(cursor, result);
  const out = [first];
  let expected = first.id + 1;
  for (const ev of events) {
    if (ev.id !== expected) {
      throw new StreamResumptionError(
        `non-contiguous stream: expected ${expected}, got ${ev.id}`,
        'break',
      );
    }
    out.push(ev);
    expected += 1;
  }
  return out;
}
