/**
 * The re-issue path after a failed resumption: the call is sent once more, as a new request
 * with a new id, under a new session when the old one was lost, and only when it may run twice
 * ([spec.md, who re-issues](../../docs/spec.md#who-re-issues-a-call)). The application says so
 * (`idempotent`), or the tool's annotations from `tools/list` do (`tool`: `readOnlyHint` or
 * `idempotentHint`; a tool without annotations may not run twice). Otherwise the failure is
 * surfaced for the application to report a partial result.
 */
import type { StreamResumptionError } from '../reference.js';
import { resumptionFailureOf } from './call-settlement.js';
import { markReissue } from './reissue-mark.js';

/** A tool as `tools/list` describes it: only its annotations are read. */
export interface ListedTool {
  name?: string;
  annotations?: { readOnlyHint?: unknown; idempotentHint?: unknown } | null;
}

/** What lists tools: the SDK's `Client` (1.x and 2.x), or anything with the same `listTools`. */
export interface ToolLister {
  /** The server's tools, one page at a time (the SDK `Client.listTools`). */
  listTools(params?: { cursor?: string }): Promise<{ tools: ListedTool[]; nextCursor?: string }>;
}

/**
 * Whether the tool may run twice by its annotations: `readOnlyHint: true` (it changes nothing)
 * or `idempotentHint: true` (a second run has no further effect). Anything else is `false`:
 * MCP's default for `idempotentHint` is false, and a tool without annotations says nothing.
 * Annotations are the server's word: trust them only from a server you trust.
 *
 * @category Runtime
 */
export function mayRunTwice(tool: ListedTool | undefined): boolean {
  const a = tool?.annotations;
  return a?.readOnlyHint === true || a?.idempotentHint === true;
}

/**
 * The entry of tool `name` in `tools/list` (every page read), or `undefined` when it is not
 * listed. Hand it to {@link reissueOnce} as `tool`.
 *
 * @category Runtime
 */
export async function listedTool(
  client: ToolLister,
  name: string,
): Promise<ListedTool | undefined> {
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const { tools, nextCursor } = await client.listTools(cursor ? { cursor } : undefined);
    const found = tools.find((t) => t.name === name);
    if (found || !nextCursor) return found;
    cursor = nextCursor;
  }
  return undefined;
}

/** How {@link reissueOnce} may re-issue a call whose resumption failed. */
export interface ReissueOptions {
  /**
   * The call may run twice without harm (a read, a query, a tool keyed by an idempotency
   * token): `true` or `false`, nothing else. `false`: a failed resumption is surfaced, never
   * re-issued: the first run may have done its work already (sent the mail, charged the card)
   * with only its response lost. Left out, the tool's annotations decide (`tool`).
   */
  idempotent?: boolean;
  /**
   * The tool's entry from `tools/list` (see {@link listedTool}), read when `idempotent` is left
   * out: {@link mayRunTwice} decides. One of `idempotent` and `tool` must be given (`tool` may
   * be `undefined` for a tool that is not listed: it may not run twice).
   */
  tool?: ListedTool;
  /**
   * Starts a new session before the re-issue after `session-lost` (close the client and connect
   * a new one; the `call` function must then use the new one). Without it, a `session-lost`
   * failure is surfaced. Never called for a call that may not run twice.
   */
  newSession?: () => Promise<void>;
  /**
   * What to do when the first run had already handed events to the application (its
   * notifications and progress up to `failure.call.lastDelivered`; a priming event counts):
   * `'reissue'` (the default) runs the call again from its start, so the application receives
   * the second run's notifications and progress from their beginning too; `'surface'` rejects
   * with the failure instead, for an application that cannot take them twice.
   */
  afterDelivery?: 'reissue' | 'surface';
  /** Called with the first failure before the call is re-issued (to log it, or count it). */
  onReissue?: (failure: StreamResumptionError) => void;
}

/** The options, checked: a clear error for a value of the wrong type (never a guess). */
function checked(options: ReissueOptions): { idempotent: boolean } {
  if (typeof options !== 'object' || options === null)
    throw new TypeError('reissueOnce: options must be an object');
  const { idempotent, afterDelivery, newSession } = options;
  if (idempotent !== undefined && typeof idempotent !== 'boolean')
    throw new TypeError(
      `reissueOnce: options.idempotent must be true or false, got ${typeof idempotent} ${JSON.stringify(idempotent)}`,
    );
  if (afterDelivery !== undefined && afterDelivery !== 'reissue' && afterDelivery !== 'surface')
    throw new TypeError(
      `reissueOnce: options.afterDelivery must be 'reissue' or 'surface', got ${JSON.stringify(afterDelivery)}`,
    );
  if (newSession !== undefined && typeof newSession !== 'function')
    throw new TypeError('reissueOnce: options.newSession must be a function');
  if (idempotent === undefined && !('tool' in options))
    throw new TypeError(
      'reissueOnce: say whether the call may run twice: options.idempotent (true or false), or options.tool (its tools/list entry)',
    );
  return { idempotent: idempotent ?? mayRunTwice(options.tool) };
}

/**
 * Runs `call` (for example `() => client.callTool(params)`); when it rejects because its
 * stream's resumption failed (the guard's own error, see `resumptionFailureOf`: a server's
 * error with the same code is not one), runs it once more if it may run twice, else rejects
 * with the failure as a {@link StreamResumptionError} (its `outcome`, `code` and `call` say what
 * was lost), untouched: a call that may not run twice never closes the client or opens a new
 * session first. Any other error passes through as it is, and so does a second failure: a call
 * is re-issued at most once. The options are checked before the call runs.
 *
 * @category Runtime
 * @example
 * ```ts
 * const result = await reissueOnce(() => client.callTool({ name: 'search', arguments }), {
 *   tool: await listedTool(client, 'search'), // its annotations decide; or idempotent: true
 *   newSession: async () => {
 *     await client.close();
 *     client = await connectClient(); // a new Client on a new transport: a new session
 *   },
 * });
 * ```
 */
export async function reissueOnce<T>(call: () => Promise<T>, options: ReissueOptions): Promise<T> {
  const { idempotent } = checked(options);
  let failure: StreamResumptionError;
  try {
    return await call();
  } catch (e) {
    const f = resumptionFailureOf(e);
    if (!f) throw e;
    failure = f;
  }
  if (!idempotent) throw failure;
  if (options.afterDelivery === 'surface' && failure.call?.lastDelivered != null) throw failure;
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
