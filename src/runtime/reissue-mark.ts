/**
 * How an application tells the guard that a request re-issues a failed call: it sends it inside
 * {@link markReissue}, which carries the failure along the call's async context (Node's
 * `AsyncLocalStorage`) to the guarded `fetch` that sends the POST. The guard then frees the
 * failed stream of that call, and only that one: a call that merely looks the same (same
 * method and params) is a new call, and another session starting frees nothing (R3-2).
 * `reissueOnce` marks its re-issue this way.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { StreamResumptionError } from '../reference.js';

const marks = new AsyncLocalStorage<StreamResumptionError>();

/**
 * Runs `call` (for example `() => client.callTool(params)`) as the re-issue of the call that
 * failed with `failure` (the guard's error, as `resumptionFailureOf` reads it): the guard frees
 * that call's failed stream when the re-issue is sent. A re-issue sent outside it leaves the
 * failed stream refused.
 *
 * @category Runtime
 * @example
 * ```ts
 * const failure = resumptionFailureOf(error);
 * if (failure) result = await markReissue(failure, () => client.callTool(params));
 * ```
 */
export function markReissue<T>(failure: StreamResumptionError, call: () => Promise<T>): Promise<T> {
  return marks.run(failure, call);
}

/** The failure whose re-issue is being sent now (`undefined`: none is). @internal */
export function reissueMark(): StreamResumptionError | undefined {
  return marks.getStore();
}
