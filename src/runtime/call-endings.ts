/**
 * Which call a failed stream ends, and the answer that ends it: the guard's own event ids
 * (`ownId`, `isOwnId`), the settlement of a track's call (`settlement`, once per call) and the
 * answers to the requests of failed streams (`failedAnswer`, `failedAnswers`). The wire form of
 * those answers is call-settlement.ts's. These live apart from the core (guard-core.ts), which
 * decides whether a stream failed, so that the core stays a file you can read (issue 31: no
 * file of src/runtime over 500 lines); they are functions on the core, which they import only
 * as a type, and the core never imports them (no import circle).
 */
import { StreamResumptionError } from '../reference.js';
import { settledResponse, settlementResponse, settlementsResponse } from './call-settlement.js';
import type { GuardCore } from './guard-core.js';
import type { Track } from './guard-track.js';

/** The id of an event guard `core` writes itself for track `n` (see `SETTLED_ID_PREFIX`). */
export function ownId(core: GuardCore, n: number): string {
  return `${core.ownIdPrefix}${n}`;
}

/** `true` for a `Last-Event-ID` naming an event guard `core` wrote itself. */
export function isOwnId(core: GuardCore, id: string): boolean {
  return id.startsWith(core.ownIdPrefix);
}

/**
 * The failure that ends the track's call now, if the call still waits for its response and
 * the guard enforces (`null`: nothing to end). It ends a call once, and the stream is then
 * forgotten: the SDK's later reconnects name the settlement's own id, answered 405
 * ({@link settledResponse}) without a track, so calls ended and never re-issued hold nothing.
 */
export function settlement(
  core: GuardCore,
  track: Track,
  e: unknown,
): StreamResumptionError | null {
  if (!(e instanceof StreamResumptionError) || !core.enforce || core.cfg.endCalls !== 'respond')
    return null;
  if (track.request === null || track.completed || track.settled) return null;
  track.settled = true;
  core.free(track);
  return e;
}

/**
 * The answer to a request of a failed track: the call's error response as a stream (the SDK
 * rejects the call at once, and stops reconnecting), a 405 once the call was ended, or the
 * error itself for a stream that owes no call (the standalone stream, or observe-only).
 */
export function failedAnswer(core: GuardCore, track: Track, e: StreamResumptionError): Response {
  if (track.settled) return settledResponse();
  const ending = settlement(core, track, e);
  if (ending) return settlementResponse(ending, ownId(core, track.id));
  throw e;
}

/**
 * The answer to the retry of failed streams whose calls still wait (a GET without
 * `Last-Event-ID` that any of them may have sent): one stream carrying the error response of
 * every such call, so that each pending call ends, whichever of them sent it (issue 38: a 405
 * for one call already ended leaves the other waiting); or the latest failure itself when no
 * call can be ended (observe-only, `endCalls: 'error'`, streams without a call). Each GET
 * refused is recorded on its stream.
 */
export function failedAnswers(core: GuardCore, tracks: Track[]): Response {
  const endings: [StreamResumptionError, string][] = [];
  for (const t of tracks) {
    const ending = settlement(core, t, core.refuse(t, null));
    if (ending) endings.push([ending, ownId(core, t.id)]);
  }
  if (endings.length === 0) throw tracks[tracks.length - 1]!.failure!;
  return settlementsResponse(endings);
}
