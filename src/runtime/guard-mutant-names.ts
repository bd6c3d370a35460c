/**
 * The names of the guard's mutants (their builders live outside the deployable runtime, in
 * src/runtime-mutants/guard-mutants.ts). The guard's code checks these names at the switches
 * where a mutant puts a bug back; `continuityGuard` never passes one.
 * @internal
 */
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
