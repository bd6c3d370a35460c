/**
 * The guard's mutant table: each entry puts back one of the bugs of issue 16, so that the
 * runtime's differential property (properties/runtime/) can show it finds every one of them,
 * as the model's mutant zoo (model/mutants/) does for the machine. `mutantGuard(fetch, options,
 * name)` builds one. It lives outside src/runtime/ (the deployable folder) and is not exported
 * by `mcp-resumption/runtime`: `continuityGuard` itself takes no mutant, so a deployed guard
 * cannot be switched into a buggy one by an options object.
 */
import { guardWith } from '../runtime/continuity-guard.js';
import { GuardCore } from '../runtime/guard-core.js';
import type { SessionCursors } from '../runtime/session-cursors.js';
import { SessionsSkippingTakenIds } from './reader-mutants.js';
import type { ContinuityGuardOptions } from '../runtime/guard-options.js';
import type { GuardMutantName } from '../runtime/guard-mutant-names.js';

export type { GuardMutantName };

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

/** `continuityGuard` with the mutant `name` put back: for the runtime's property suite only. */
export function mutantGuard(
  fetchFn: typeof fetch,
  options: ContinuityGuardOptions,
  name: GuardMutantName,
): typeof fetch {
  return guardWith(fetchFn, mutantCore(options, name));
}

/** `lazy-index-skips-taken-ids`: the guard's cursor indexes skip the check for a taken id. */
class LazyIndexSkipsTakenIds extends GuardCore {
  protected override sessionCursors(): SessionCursors {
    return new SessionsSkippingTakenIds();
  }
}

/** The guard's core with the mutant `name` put back (for the properties that drive a core). */
export function mutantCore(options: ContinuityGuardOptions, name: GuardMutantName): GuardCore {
  return name === 'lazy-index-skips-taken-ids'
    ? new LazyIndexSkipsTakenIds(options, undefined)
    : new GuardCore(options, name);
}
