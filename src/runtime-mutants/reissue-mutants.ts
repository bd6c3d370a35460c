/**
 * Wrong `reissueOnce`s, for the suite that shows it catches them
 * (properties/runtime/reissue.test.ts). Outside src/runtime/ (the deployable folder) and not
 * exported by `mcp-resumption/runtime`.
 */
import { reissueOnce, type ReissueOptions } from '../runtime/reissue.js';
import { resumptionFailureOf } from '../runtime/call-settlement.js';

/**
 * Issue 38's mutant: on `session-lost` it first closes the client and reconnects (`newSession`),
 * and only then asks whether the call may run twice. For a call that may not, the application
 * gets whatever the reconnect threw (a connection error when the server is down) instead of the
 * `StreamResumptionError`, and loses the outcome, the code and the call's details.
 */
export async function reissueReconnectingFirst<T>(
  call: () => Promise<T>,
  options: ReissueOptions,
): Promise<T> {
  let first = true;
  return reissueOnce(async () => {
    if (!first) return call();
    first = false;
    try {
      return await call();
    } catch (e) {
      if (resumptionFailureOf(e)?.outcome === 'session-lost') await options.newSession?.();
      throw e;
    }
  }, options);
}
