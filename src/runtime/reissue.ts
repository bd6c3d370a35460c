/**
 * The re-issue path after a failed resumption: the call is sent once more, as a new request
 * with a new id (what MCP 2026-07-28 requires of a client whose response stream broke), under a
 * new session when the old one was lost. Only an application knows whether its tool may run
 * twice, so it says so; otherwise the failure is surfaced for it to report a partial result.
 */
import type { StreamResumptionError } from '../reference.js';
import { resumptionFailureOf } from './call-settlement.js';
import { markReissue } from './reissue-mark.js';

/** How {@link reissueOnce} may re-issue a call whose resumption failed. */
export interface ReissueOptions {
  /**
   * The call may run twice without harm (a read, a query, a tool keyed by an idempotency
   * token). `false`: a failed resumption is surfaced, never re-issued: the first run may have
   * done its work already (sent the mail, charged the card) with only its response lost.
   */
  idempotent: boolean;
  /**
   * Starts a new session before the re-issue after `session-lost` (close the client and connect
   * a new one; the `call` function must then use the new one). Without it, a `session-lost`
   * failure is surfaced.
   */
  newSession?: () => Promise<void>;
  /** Called with the first failure before the call is re-issued (to log it, or count it). */
  onReissue?: (failure: StreamResumptionError) => void;
}

/**
 * Runs `call` (for example `() => client.callTool(params)`); when it rejects because its
 * stream's resumption failed (the guard's error, see `resumptionFailureOf`), runs it once
 * more if `options` allow it, else rejects with the failure as a {@link StreamResumptionError}
 * (its `outcome`, `code` and `call` say what was lost). Any other error passes through as it
 * is, and so does a second failure: a call is re-issued at most once.
 *
 * @category Runtime
 * @example
 * ```ts
 * const result = await reissueOnce(() => client.callTool({ name: 'search', arguments }), {
 *   idempotent: true,
 *   newSession: async () => {
 *     await client.close();
 *     client = await connectClient(); // a new Client on a new transport: a new session
 *   },
 * });
 * ```
 */
export async function reissueOnce<T>(call: () => Promise<T>, options: ReissueOptions): Promise<T> {
  let failure: StreamResumptionError;
  try {
    return await call();
  } catch (e) {
    const f = resumptionFailureOf(e);
    if (!f) throw e;
    failure = f;
  }
  if (!options.idempotent) throw failure;
  if (failure.outcome === 'session-lost') {
    if (!options.newSession) throw failure;
    await options.newSession();
  }
  options.onReissue?.(failure);
  try {
    // Marked as the re-issue of `failure`: the guard frees that call's failed stream (only it).
    return await markReissue(failure, call);
  } catch (e) {
    throw resumptionFailureOf(e) ?? e;
  }
}
