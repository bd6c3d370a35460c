/**
 * The options of {@link continuityGuard}, their defaults and their bounds. Every bound is
 * documented in docs/runtime.md; a bad value is refused with a one-line error naming it.
 */
import type { ClientMachine } from '../../model/client-machine.js';
import type { Outcome, Reason } from '../../model/outcomes.js';
import type { StreamResumptionError } from '../reference.js';
import type { TraceLine } from '../trace/format.js';

/** Reads a sequence number (and the stream) out of an SSE id; `null`: not readable. */
export type IdReader = (id: string) => { seq: number; stream?: string } | null;

/** A decision the guard took about one reconnect. */
export interface GuardDecision {
  outcome: Outcome;
  reason: Reason | null;
  /** The `Last-Event-ID` sent (`null`: none). */
  cursor: string | null;
}

/**
 * One line of the trace the guard observed: a trace format v1 line, its time `t` (ms since the
 * guard was created) and, where the format has no field for it, what the guard saw (`unseen`:
 * a cursor from a stream the guard did not follow; `redirect`, `contentType`: why a resume's
 * answer could not prove anything; `opaqueId`: an id without a readable sequence).
 */
export type GuardTraceLine = TraceLine & {
  t: number;
  unseen?: boolean;
  redirect?: boolean;
  contentType?: string | null;
  opaqueId?: string;
};

/** Options of {@link continuityGuard}. */
export interface ContinuityGuardOptions {
  /** How to read sequence numbers out of event ids. Default {@link defaultIdReader}. */
  readId?: IdReader;
  /**
   * Idle timeout (ms) on bytes arriving: the timer runs only while the guard waits for the
   * network on behalf of a reader that asked for more, so a busy application (backpressure)
   * never trips it. When it fires, the stream is errored and the SDK reconnects with its cursor.
   * Must exceed the server's keepalive interval plus the longest single-write stall. Default 0
   * (off).
   */
  idleTimeoutMs?: number;
  /**
   * `'network'` (default): the idle timer restarts when it fires late because the event loop
   * was blocked, since the bytes may be waiting unread. `'wall'`: a naive timer that fires
   * anyway, mistaking application work for silence (kept to show the difference in tests).
   */
  idleClock?: 'network' | 'wall';
  /**
   * The proof budget of an episode (ms), measured from its first reconnect: a resume still
   * without proof (no event yet, whether or not an acknowledgment's floor covers the cursor)
   * when it runs out has failed (rule 7).
   * The polls of one episode (the server ends each resumed stream empty and the client
   * reconnects with the same cursor, MCP 2025-11-25) share it. It bounds a reconnect's status
   * line too: a reconnect whose headers have not come when it runs out is unanswered (rule 1,
   * `no-response`) and aborted, and the call learns then. Default 10000.
   */
  proofTimeoutMs?: number;
  /**
   * Removed: a reconnect's headers are bounded by the proof budget (`proofTimeoutMs`). A guard
   * given this option is refused with a one-line error, so that no configuration keeps a bound
   * it no longer has.
   * @deprecated
   */
  responseTimeoutMs?: never;
  /**
   * How long (ms) a new stream's request (a POST, or a GET without `Last-Event-ID`) may wait
   * for the answer's headers before it is aborted with an error naming this bound. A server
   * that answers calls with JSON only when they finish needs more than its longest call; 0
   * turns the bound off. Default 60000.
   */
  firstHeadersTimeoutMs?: number;
  /**
   * The range (ms) a server's `retry:` is clamped to on its way to the client: Node turns a
   * timer above 2^31-1 ms into 1 ms, so an unclamped huge value makes the SDK reconnect in a
   * tight loop, and `retry: 0` does so directly. Defaults 250, and the proof budget
   * (`proofTimeoutMs`, at most 60000): a server that asks the client to wait longer than that
   * before its next poll (`retry: 1000000000000`) would otherwise hold the call past the
   * budget it is judged by.
   */
  minRetryMs?: number;
  /** See {@link ContinuityGuardOptions.minRetryMs}. */
  maxRetryMs?: number;
  /**
   * The most streams the guard follows at once (open ones, interrupted ones owed a reconnect,
   * and failed ones waiting for the application to re-issue their call). A request that would
   * open one more is refused with a {@link GuardCapacityError} before it is sent. A stream's
   * state is freed when its response arrives and its stream ends. Default 10000.
   */
  maxStreams?: number;
  /** Largest single SSE event accepted (bytes); beyond it the stream is errored. Default 8 MiB. */
  maxEventBytes?: number;
  /**
   * `true` (default): error streams that cannot prove continuity. `false`: observe only (record
   * decisions and the trace, change nothing), as a bare client behaves.
   */
  enforce?: boolean;
  /**
   * `'respond'` (default): when a stream that owes its request a response fails, the guard ends
   * the call at once with a JSON-RPC error response for the request's id
   * (code `RESUMPTION_ERROR_CODE`, -32030; `data` names the outcome, the reason, the stream, the
   * cursor and the last id delivered), so the SDK rejects the pending `callTool` immediately and
   * stops reconnecting; later reconnects of that stream get a 405. `'error'`: the stream's body
   * errors (or the fetch rejects) with the {@link StreamResumptionError} instead, for a client
   * that handles the error itself (the SDKs do not: their call waits for its request timeout).
   */
  endCalls?: 'respond' | 'error';
  /**
   * `true` (default): the client reconnects a request's stream that broke or was ended before
   * its response, with `Last-Event-ID` (the SDK clients do). `false`: it never does (some
   * clients outside the SDK family, `@ai-sdk/mcp` 1.0 among them, leave the call waiting for
   * ever): a request's stream that ends before its response then fails its call at once, as a
   * stream without ids does, instead of waiting for a reconnect that will not come.
   */
  clientResumes?: boolean;
  /** Called with every escalation (also when `enforce` is false). */
  onFailure?: (error: StreamResumptionError) => void;
  /** Called with every decision about a reconnect. */
  onDecision?: (decision: GuardDecision) => void;
  /**
   * Receives the trace the guard observed, one line at a time (trace format v1, with `t`), with
   * the number of the stream it belongs to. One stream's lines (a request's stream and its
   * resumptions) form one trace: `checkTrace(lines, { proofBudget: proofTimeoutMs })` judges it
   * as the guard did. Keep the lines of each stream apart.
   */
  onTrace?: (line: GuardTraceLine, stream: number) => void;
  /** The machine to decide with (tests pass wrong ones). Default the client machine. */
  machine?: ClientMachine;
}

/** The options with their defaults, checked. */
export interface GuardConfig {
  idleTimeoutMs: number;
  idleClock: 'network' | 'wall';
  proofTimeoutMs: number;
  firstHeadersTimeoutMs: number;
  minRetryMs: number;
  maxRetryMs: number;
  maxStreams: number;
  maxEventBytes: number;
  enforce: boolean;
  endCalls: 'respond' | 'error';
  clientResumes: boolean;
}

/**
 * Option `name` of `owner` (`continuityGuard`, `taskStreamGuard`), or `fallback` when absent;
 * throws a one-line `RangeError` naming both when it is not a number at least `min`.
 */
export function boundedOption(
  owner: string,
  name: string,
  value: number | undefined,
  fallback: number,
  min: number,
): number {
  const v = value ?? fallback;
  if (!Number.isFinite(v) || v < min) {
    throw new RangeError(`${owner}: ${name} must be a number >= ${min}, got ${v}`);
  }
  return v;
}

const bounded = (name: string, value: number | undefined, fallback: number, min: number) =>
  boundedOption('continuityGuard', name, value, fallback, min);

/** Reads the options, with their defaults; throws a one-line `RangeError` on a bad value. */
export function configOf(options: ContinuityGuardOptions): GuardConfig {
  if ((options as { responseTimeoutMs?: unknown }).responseTimeoutMs !== undefined) {
    throw new RangeError(
      "continuityGuard: responseTimeoutMs was removed: the proof budget (proofTimeoutMs) bounds a reconnect's headers too",
    );
  }
  const minRetryMs = bounded('minRetryMs', options.minRetryMs, 250, 0);
  const proofTimeoutMs = bounded('proofTimeoutMs', options.proofTimeoutMs, 10_000, 1);
  const maxRetryMs = bounded(
    'maxRetryMs',
    options.maxRetryMs,
    Math.max(minRetryMs, Math.min(60_000, proofTimeoutMs)),
    minRetryMs,
  );
  if (maxRetryMs > 2 ** 31 - 1) {
    throw new RangeError(`continuityGuard: maxRetryMs must be at most 2^31-1, got ${maxRetryMs}`);
  }
  return {
    idleTimeoutMs: bounded('idleTimeoutMs', options.idleTimeoutMs, 0, 0),
    idleClock: options.idleClock ?? 'network',
    proofTimeoutMs,
    firstHeadersTimeoutMs: bounded(
      'firstHeadersTimeoutMs',
      options.firstHeadersTimeoutMs,
      60_000,
      0,
    ),
    minRetryMs,
    maxRetryMs,
    maxStreams: bounded('maxStreams', options.maxStreams, 10_000, 1),
    maxEventBytes: bounded('maxEventBytes', options.maxEventBytes, 8 * 1024 * 1024, 1),
    enforce: options.enforce ?? true,
    endCalls: endCallsOf(options.endCalls),
    clientResumes: options.clientResumes ?? true,
  };
}

function endCallsOf(v: unknown): 'respond' | 'error' {
  if (v === undefined || v === 'respond' || v === 'error') return v ?? 'respond';
  throw new RangeError(
    `continuityGuard: endCalls must be 'respond' or 'error', got ${JSON.stringify(v)}`,
  );
}
