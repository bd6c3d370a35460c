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
 * `model/run.ts`, compiled by `src/trace/engine.ts` as the trace checker runs it) decides.
 * What the guard adds is runtime policy the model leaves to the client: bounds on waits and
 * memory, and refusing every later GET of a failed stream until the application re-issues its
 * call. docs/runtime.md lists every rule and bound.
 *
 * Where it lives: guard-core.ts (the tracks, and wire facts turned into machine observations),
 * guard-body.ts (an SSE body read through the core), guard-requests.ts (which request opens,
 * resumes or is refused), guard-wire.ts and guard-ids.ts (pure readers of the wire), and
 * call-settlement.ts (the error response that ends a failed call).
 */
import type { ContinuityGuardOptions } from './guard-options.js';
import { GuardCore, type GuardState } from './guard-core.js';
import { GuardRequests } from './guard-requests.js';

export type {
  ContinuityGuardOptions,
  GuardDecision,
  GuardTraceLine,
  IdReader,
} from './guard-options.js';
export { defaultIdReader, idReaderFromPattern } from './guard-ids.js';
export { GuardCapacityError, type GuardState } from './guard-core.js';

const STATES = new WeakMap<object, () => GuardState>();

/** What the guard returned by {@link continuityGuard} holds now (`null`: not a guard). */
export function inspectGuard(guarded: typeof fetch): GuardState | null {
  return STATES.get(guarded)?.() ?? null;
}

/**
 * Wraps `fetchFn` so that every SSE stream the MCP client reads is checked by the client
 * machine: the first stream of a request must be gap-free; a resumption (GET with
 * `Last-Event-ID`) must be proven by a first event whose id is the cursor's successor, on a
 * `200` answer with `text/event-stream` (a replay acknowledgment with a floor covering the
 * cursor only lets it wait for that event, within the proof budget); a reconnect without `Last-Event-ID` after events were received is
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
 *     onFailure: (e) => console.error(`resumption failed: ${e.message}`),
 *   }),
 * });
 * ```
 */
export function continuityGuard(
  fetchFn: typeof fetch,
  options: ContinuityGuardOptions = {},
): typeof fetch {
  const core = new GuardCore(options);
  return guardOver(core, new GuardRequests(core, fetchFn));
}

/**
 * The guard's `fetch` over a core and the requests sent through it: `continuityGuard`'s, or
 * subclasses of them built outside src/runtime/ (src/runtime-mutants/guard-mutants.ts).
 * @internal
 */
export function guardOver(core: GuardCore, requests: GuardRequests): typeof fetch {
  const guarded = (input: Parameters<typeof fetch>[0], init?: RequestInit) =>
    requests.guarded(input, init);
  STATES.set(guarded, () => core.state());
  return guarded as typeof fetch;
}
