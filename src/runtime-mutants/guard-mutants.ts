/**
 * The guard's mutant table: each entry puts back one of the bugs of issue 16, so that the
 * runtime's differential property (properties/runtime/) can show it finds every one of them,
 * as the model's mutant zoo (model/mutants/) does for the machine. `mutantGuard(fetch, options,
 * name)` builds one. It lives outside src/runtime/ (the deployable folder) and is not exported
 * by `mcp-resumption/runtime`: `continuityGuard` itself takes no mutant, so a deployed guard
 * cannot be switched into a buggy one by an options object.
 */
import type { StreamResumptionError } from '../reference.js';
import { guardOver } from '../runtime/continuity-guard.js';
import { GuardBody, type Body } from '../runtime/guard-body.js';
import { GuardCore } from '../runtime/guard-core.js';
import type { ContinuityGuardOptions } from '../runtime/guard-options.js';
import { GuardRequests } from '../runtime/guard-requests.js';
import type { Track } from '../runtime/guard-track.js';
import { eventLine, isRedirectStatus } from '../runtime/guard-wire.js';
import type { SessionCursors } from '../runtime/session-cursors.js';
import { SessionsSkippingTakenIds } from './reader-mutants.js';

/** The name of a guard mutant: a bug of issue 16 (`GUARD_MUTANTS`), or one of a later issue. */
export type GuardMutantName =
  | 'non-sse-unjudged'
  | 'cursorless-retry-is-new'
  | 'comment-ends-first-check'
  | 'budget-per-poll'
  | 'follows-redirects'
  | 'retry-unclamped'
  | 'keeps-completed-streams'
  // Not a bug of issue 16: the raw forwarding of issue 31 (guard-body.ts, `handOn`) handing on
  // the block still being read; properties/runtime/raw-forwarding.test.ts kills it.
  | 'hands-on-unfinished-blocks'
  // Nor this: the lazy cursor index of issue 31 (cursor-index.ts, `remember`) skipping its check
  // for an id the map already holds; properties/runtime/cursor-index.test.ts kills it.
  | 'lazy-index-skips-taken-ids'
  // Nor this: the response pre-check of issue 31 (guard-body.ts, `feed`) counting a narrower
  // pattern (`"id":`) than a response's data must hold, so that `"id" :` (JSON may space
  // around its colon) is never looked at; properties/runtime/response-precheck.test.ts kills it.
  | 'response-needs-id-colon'
  // Nor this (issue 37): a GET without Last-Event-ID that the guard can attribute to the one
  // interrupted stream of its session is failed as a dropped cursor instead of sent with that
  // stream's cursor (properties/runtime/sdk-polling.test.ts kills it).
  | 'cursorless-never-restored'
  // And the guard that never arms a resume's proof budget: a silent resume stays undecided, and
  // the call waits for the SDK's timeout (properties/runtime/differential.test.ts kills it: a
  // held stream counts as an honest timeout only after a `resumed` decision).
  | 'resume-left-undecided';

/** One guard mutant: the bug it restores and what it does. */
export interface GuardMutant {
  name: GuardMutantName;
  /** The bug of issue 16 it puts back (1-7). */
  bug: number;
  description: string;
}

/** Every guard mutant, by bug number. */
export const GUARD_MUTANTS: readonly GuardMutant[] = [
  {
    name: 'non-sse-unjudged',
    bug: 1,
    description:
      'passes a 200 resume that is not text/event-stream through unjudged (the SDK parses it as SSE anyway)',
  },
  {
    name: 'cursorless-retry-is-new',
    bug: 2,
    description:
      'after a refused resume, takes a retry without Last-Event-ID for a new standalone stream',
  },
  {
    name: 'comment-ends-first-check',
    bug: 3,
    description:
      'a comment before the first event of a resume ends the first-event check: the next event is not judged',
  },
  {
    name: 'budget-per-poll',
    bug: 4,
    description: 'every poll of an episode gets a fresh proof budget, so polls never run it out',
  },
  {
    name: 'follows-redirects',
    bug: 5,
    description: 'lets fetch follow a redirect on a resume and judges the answer from elsewhere',
  },
  {
    name: 'retry-unclamped',
    bug: 6,
    description: 'passes a server `retry:` through unclamped',
  },
  {
    name: 'keeps-completed-streams',
    bug: 7,
    description: 'keeps the state of every completed stream forever',
  },
];

// Each mutant is a subclass of one part of the guard (its core, its request handling, or the
// body of a stream) that overrides one small method of it (two for comment-ends-first-check).

/** `keeps-completed-streams`: a stream that did not fail is never forgotten. */
class KeepsCompletedStreams extends GuardCore {
  override free(track: Track): void {
    if (track.failure !== null) super.free(track);
  }
}

/** `budget-per-poll`: every reconnect starts its episode's budget anew, a poll's too. */
class BudgetPerPoll extends GuardCore {
  protected override keepsBudget(): boolean {
    return false;
  }
}

/** `resume-left-undecided`: a resume's proof budget is never armed. */
class ResumeLeftUndecided extends GuardCore {
  override armBudget(): void {}
}

/** `lazy-index-skips-taken-ids`: the guard's cursor indexes skip the check for a taken id. */
class LazyIndexSkipsTakenIds extends GuardCore {
  protected override sessionCursors(): SessionCursors {
    return new SessionsSkippingTakenIds();
  }
}

/** `non-sse-unjudged`: a 200 answer that is not SSE is passed through. */
class NonSseUnjudged extends GuardRequests {
  protected override nonSseResume(_track: Track, response: Response): Response {
    return response;
  }

  protected override nonSseOpen(response: Response): Response {
    return response;
  }
}

/** `cursorless-retry-is-new`: no failed call is waiting for the GET without a cursor. */
class CursorlessRetryIsNew extends GuardRequests {
  protected override unsettled(): Track[] {
    return [];
  }
}

/** `cursorless-never-restored`: a GET without a cursor is never given its stream's. */
class CursorlessNeverRestored extends GuardRequests {
  protected override restores(): boolean {
    return false;
  }
}

/** `follows-redirects`: fetch follows a redirect, and only a redirect status is one. */
class FollowsRedirects extends GuardRequests {
  protected override manual(init: RequestInit | undefined): RequestInit | undefined {
    return init;
  }

  protected override redirected(response: Response): boolean {
    return isRedirectStatus(response.status);
  }
}

/** `retry-unclamped`: a server's `retry:` goes on as it came. */
class RetryUnclamped extends GuardBody {
  protected override clampRetry(ms: number): number {
    return ms;
  }
}

/** `comment-ends-first-check`: after a comment first, a resume's next event is not judged. */
class CommentEndsFirstCheck extends GuardBody {
  /** A comment came before the first event. */
  private commentFirst = false;

  protected override onComment(c: string): void {
    if (this.track.held) this.commentFirst = true;
    super.onComment(c);
  }

  protected override judge(
    seq: number,
    stream: string | undefined,
    response: boolean,
  ): StreamResumptionError | null {
    if (!this.commentFirst) return super.judge(seq, stream, response);
    this.commentFirst = false;
    this.core.emit(this.track, eventLine(seq, stream, response));
    return null;
  }
}

/** `hands-on-unfinished-blocks`: the text fed goes on whole, the block still being read too. */
class HandsOnUnfinishedBlocks extends GuardBody {
  protected override boundary(lines: string): number {
    return lines.length > 0 ? lines.length : super.boundary(lines);
  }
}

/** `response-needs-id-colon`: only `"id":` counts as a possible response. */
class ResponseNeedsIdColon extends GuardBody {
  protected override idMark(): string {
    return '"id":';
  }
}

/** The request handling of a guard whose every stream is read by `Mutant`. */
function readBy(Mutant: typeof GuardBody): typeof GuardRequests {
  return class extends GuardRequests {
    protected override body(track: Track, source: Body, signal?: AbortSignal | null): Body {
      return Mutant.stream(this.core, track, source, signal);
    }
  };
}

/** Each mutant's core and request handling (the guard's own where it has none). */
const PARTS: Record<GuardMutantName, { Core?: typeof GuardCore; Requests?: typeof GuardRequests }> =
  {
    'non-sse-unjudged': { Requests: NonSseUnjudged },
    'cursorless-retry-is-new': { Requests: CursorlessRetryIsNew },
    'comment-ends-first-check': { Requests: readBy(CommentEndsFirstCheck) },
    'budget-per-poll': { Core: BudgetPerPoll },
    'follows-redirects': { Requests: FollowsRedirects },
    'retry-unclamped': { Requests: readBy(RetryUnclamped) },
    'keeps-completed-streams': { Core: KeepsCompletedStreams },
    'hands-on-unfinished-blocks': { Requests: readBy(HandsOnUnfinishedBlocks) },
    'lazy-index-skips-taken-ids': { Core: LazyIndexSkipsTakenIds },
    'response-needs-id-colon': { Requests: readBy(ResponseNeedsIdColon) },
    'cursorless-never-restored': { Requests: CursorlessNeverRestored },
    'resume-left-undecided': { Core: ResumeLeftUndecided },
  };

/** The guard's core with the mutant `name` put back (the guard's own core when its bug is elsewhere). */
export function mutantCore(options: ContinuityGuardOptions, name: GuardMutantName): GuardCore {
  const { Core = GuardCore } = PARTS[name];
  return new Core(options);
}

/** `continuityGuard` with the mutant `name` put back: for the runtime's property suite only. */
export function mutantGuard(
  fetchFn: typeof fetch,
  options: ContinuityGuardOptions,
  name: GuardMutantName,
): typeof fetch {
  const { Requests = GuardRequests } = PARTS[name];
  const core = mutantCore(options, name);
  return guardOver(core, new Requests(core, fetchFn));
}
