/**
 * The vocabulary of the conformance harness: what an implementation adapter must provide, what
 * a scenario observes, and the verdict it reaches.
 */

/**
 * The answers a cell of the matrix can give: `hang` is no answer within the bound; `error` is
 * an answer that did not let the harness run the scenario (its status and a body excerpt are
 * in the cell); `n/a` is not run, with the reason.
 */
export type CellVerdict =
  'honored' | 'rejected' | 'silent loss' | 'leak' | 'hang' | 'error' | 'n/a';

/**
 * The reason of a row whose events carry no SSE ids: there is no cursor, so every "resume" is a
 * GET without `Last-Event-ID`. Stated once for the row (its cells that could only lose for
 * that reason are `n/a` with it), not as a loss in every cell.
 */
export const NOT_RESUMABLE = 'not resumable: events carry no ids';

/**
 * The reason of a row whose server speaks only protocol 2026-07-28: that revision removed SSE
 * resumability (SEP-2575), so a broken stream loses the request and the client re-issues it.
 * Stated once for the row, every cell `n/a` with it, instead of an error per cell.
 */
export const NOT_RESUMABLE_2026 = 'not resumable: 2026-07-28 (re-issue on a broken stream)';

/** The reasons stated once per row rather than once per cell. */
export const ROW_REASONS: readonly string[] = [NOT_RESUMABLE, NOT_RESUMABLE_2026];

/**
 * The server speaks only 2026-07-28 (its `initialize` negotiated it, or `initialize` failed and
 * `server/discover` offers no earlier version): the cell is `n/a` with {@link NOT_RESUMABLE_2026}.
 */
export class Era2026Error extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'Era2026Error';
  }
}

/** Every verdict, in the order the report lists them. */
export const CELL_VERDICTS: readonly CellVerdict[] = [
  'honored',
  'rejected',
  'silent loss',
  'leak',
  'hang',
  'error',
  'n/a',
];

/** Shortens a response body (JSON or text) to one line of at most `max` characters. */
export function bodyExcerpt(body: unknown, max = 160): string {
  if (body === null || body === undefined || body === '') return '(empty body)';
  const text = (typeof body === 'string' ? body : JSON.stringify(body)).replace(/\s+/g, ' ').trim();
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * The harness could not run a scenario: the implementation answered, but not as the scenario
 * needs (for example `initialize` or `tools/call` answered 400). The cell's verdict is `error`,
 * with the status and an excerpt of the body; a failure to answer at all is a
 * {@link NoAnswerError} (`hang`).
 */
export class HarnessError extends Error {
  /**
   * @param what What the harness tried (`tools/call answered 400 instead of an SSE stream`).
   * @param status The HTTP status of the answer (`null`: no HTTP answer, e.g. a refused
   *   connection).
   * @param body An excerpt of the answer's body (see {@link bodyExcerpt}).
   */
  constructor(
    what: string,
    /** The HTTP status of the answer (`null`: no HTTP answer). */
    readonly status: number | null = null,
    /** An excerpt of the answer's body. */
    readonly body?: string,
  ) {
    super(body === undefined ? what : `${what}: ${body}`);
    this.name = 'HarnessError';
  }
}

/**
 * A call's messages arrived, but on another stream than the call's own (another call's, or
 * another session's): the cell is a `leak`, whatever the scenario was waiting for.
 */
export class LeakError extends Error {
  /**
   * @param message Which messages arrived where.
   * @param crossSession `true` when they reached another session (a security finding).
   */
  constructor(
    message: string,
    readonly crossSession = false,
  ) {
    super(message);
    this.name = 'LeakError';
  }
}

/**
 * The harness's own control calls (`count_release`, `count_status`, on a session of their own)
 * failed: the server under test misrouted or refused them. The cell is `error: control channel`,
 * never a verdict on the scenario, which did not cause it.
 */
export class ControlChannelError extends Error {
  /** @param message What the control call got. */
  constructor(message: string) {
    super(message);
    this.name = 'ControlChannelError';
  }
}

/** No answer within the bound while the harness set a scenario up: the cell is a `hang`. */
export class NoAnswerError extends Error {
  /** @param message What did not come, and the bound. */
  constructor(message: string) {
    super(message);
    this.name = 'NoAnswerError';
  }
}

/**
 * Reads a sequence number (and, when the ids name it, the stream) out of an implementation's
 * SSE event id. `null` when the id carries no sequence (opaque ids).
 */
export interface IdCodec {
  /** A regular expression with a named group `seq` (and optionally `stream`), for `check`. */
  readonly pattern: RegExp | null;
  /** Whether `seq` counts per stream (contiguous within a stream) or across all streams. */
  readonly sequence?: 'per-stream' | 'global';
  /** Decodes one id; `null` when it is not of the implementation's form. */
  decode(id: string): { seq: number; stream?: string } | null;
}

/** Builds an {@link IdCodec} from a regular expression with named groups `seq` and `stream`. */
export function patternCodec(
  pattern: RegExp,
  sequence: 'per-stream' | 'global' = 'per-stream',
): IdCodec {
  return {
    pattern,
    sequence,
    decode(id) {
      const m = pattern.exec(id);
      const seq = m?.groups?.seq;
      if (!m || seq === undefined || !/^\d+$/.test(seq)) return null;
      const n = Number(seq);
      if (!Number.isSafeInteger(n)) return null;
      const stream = m.groups?.stream;
      return stream === undefined ? { seq: n } : { seq: n, stream };
    },
  };
}

/** The codec of implementations whose ids carry no sequence number. */
export const OPAQUE_IDS: IdCodec = { pattern: null, decode: () => null };

/**
 * Holds and releases the test tool. The tool asks `beforeEmit` before each numbered message
 * and reports each one it emitted; the harness uses the holds to put the server exactly where a
 * scenario needs it, without sleeping.
 */
export interface ToolControl {
  /** Resolves when the tool may emit message `index` of the call tagged `tag`. */
  beforeEmit(tag: string, index: number): Promise<void>;
  /** The tool emitted (and the transport stored) message `index` of call `tag`. */
  emitted(tag: string, index: number): void;
}

/** A capability an adapter may lack; a scenario that needs it is `n/a`, with the adapter's reason. */
export type Capability = 'evict' | 'keepalive' | 'restart' | 'storeDelay';

/** Capabilities an implementation adapter may lack; a scenario that needs one is not run. */
export interface AdapterCapabilities {
  /** The adapter can make the server forget old events (`evict`). */
  evict: boolean;
  /** The keepalive interval can be set to the scenario's value. */
  keepalive: boolean;
  /**
   * The server's keepalive interval when it cannot be set (ms): `reader-stall` then runs with
   * this interval instead of the harness's.
   */
  keepAliveMs?: number;
  /** The adapter can restart the server, losing its in-memory state (default `true`). */
  restart?: boolean;
  /** The adapter's event store can be slowed by {@link StartOptions.storeDelayMs} (default `false`). */
  storeDelay?: boolean;
  /**
   * Why each missing capability is missing, in the adapter's words; the `n/a` cell prints it
   * (for example "its keepalive interval is fixed at 15 s by mcp-proxy").
   */
  missing?: Partial<Record<Capability, string>>;
}

/**
 * Why `adapter` cannot serve a scenario that needs `capability` (`null`: it can): the
 * adapter's own reason when it declared one, else a generic one.
 */
export function lacking(adapter: ImplementationAdapter, capability: Capability): string | null {
  const c = adapter.capabilities;
  const has =
    capability === 'restart'
      ? c.restart !== false
      : capability === 'keepalive'
        ? c.keepalive || c.keepAliveMs !== undefined
        : capability === 'storeDelay'
          ? c.storeDelay === true
          : c.evict;
  if (has) return null;
  const generic: Record<Capability, string> = {
    evict: 'the adapter declares no way to evict events',
    keepalive: 'the adapter declares neither a settable nor a known keepalive interval',
    restart: 'the adapter declares no way to restart the server',
    storeDelay: 'the adapter declares no way to slow its event store',
  };
  return c.missing?.[capability] ?? generic[capability];
}

/**
 * How the harness holds and releases the test tool and learns what it emitted. In process it
 * is a {@link ToolControl} the adapter's tool calls directly; against a server in another
 * process (`--url`) the same moves are tool calls (`count_release`, `count_status`).
 */
export interface HarnessControl {
  /** Lets call `tag` emit message `index` (or its result, at `n + 1`). */
  release(tag: string, index: number): Promise<void>;
  /** Resolves once call `tag` has emitted message `index`; rejects after `timeoutMs`. */
  waitEmitted(tag: string, index: number, timeoutMs?: number): Promise<void>;
  /** Releases every hold, present and future, of call `tag` only. */
  releaseTag(tag: string): Promise<void>;
  /** Releases every hold, present and future: the tool runs to completion. */
  releaseAll(): Promise<void>;
  /** The highest message index call `tag` has emitted so far (0 before any): `count_status`. */
  status(tag: string): number | Promise<number>;
}

/** Options the harness passes when it starts an implementation. */
export interface StartOptions {
  /** Holds and reports of the test tool. */
  control: ToolControl;
  /** SSE keepalive interval (ms) the server should use. */
  keepAliveMs: number;
  /** Event retention the server should use where it can be set (ring capacity). */
  retention: number;
  /**
   * Delay (ms) the server's event store should add to each operation, as a networked store
   * would (`slow-store-replay`); only adapters declaring `storeDelay` honour it.
   */
  storeDelayMs?: number;
  /**
   * Put a `ReplayFence` (mcp-resumption/runtime) around the slowed store (default `true`: the deployment the
   * project recommends for a networked store). The client rows' `slow-store-replay` turns it
   * off, to show what a client meets behind a server without it.
   */
  replayFence?: boolean;
  /**
   * Awaited by a slowed store (`storeDelayMs` > 0) once it has read a replay and before its
   * answer travels back, i.e. inside the window between the read and the registration of the
   * resumed stream; the store goes on when the promise settles. The client rows'
   * `slow-store-replay` stores a live event there instead of aiming at the window with a timer.
   * Only the SDK adapters honour it.
   */
  onReplayRead?: (lastEventId: string) => Promise<void>;
  /**
   * Called by a slowed store behind a `ReplayFence` each time the transport hands it an event,
   * before the fence decides when to store it (with a replay in flight: once that replay has
   * returned). With {@link onReplayRead} holding a replay, it tells `slow-store-replay` that
   * message 4 reached the store inside the window: waiting for it to be stored would wait for
   * the held replay. Only the SDK adapters honour it.
   */
  onFencedWrite?: () => void;
}

/**
 * An implementation under test. Users plug their own server in the same way
 * (docs/conformance.md has a complete example).
 */
export interface ImplementationAdapter {
  /** Name shown in the matrix. */
  readonly name: string;
  /** Package versions it runs (name → version), printed in the report. */
  readonly versions: Record<string, string>;
  /** How its event ids encode the sequence, if they do. */
  readonly idCodec: IdCodec;
  /** What it can do; scenarios needing more are reported not run, with the reason. */
  readonly capabilities: AdapterCapabilities;
  /** One line on how it is set up (store, scope, retention). */
  readonly setup: string;
  /** Starts the server on 127.0.0.1 and resolves to the MCP endpoint URL. */
  start(options: StartOptions): Promise<string>;
  /**
   * Restarts the server at the same URL, losing all process state (sessions, in-memory event
   * stores), as a redeploy would; open connections are cut.
   */
  restart(): Promise<void>;
  /** Makes the server forget the oldest events (no-op when it cannot). */
  evict(): Promise<void>;
  /** Cuts every open connection to the server (a network fault). */
  dropConnections(): void;
  /** Stops the server and releases every handle. */
  stop(): Promise<void>;
  /**
   * Where the test tool's holds live: `in-process` (default) through {@link StartOptions.control};
   * `remote` through the tools `count_release` and `count_status` of the server itself, for a
   * server in another process or language (docs/conformance.md, "The test tool contract").
   */
  readonly toolControl?: 'in-process' | 'remote';
}

/** One numbered message (or the result) the recording client received. */
export interface Delivered {
  /** Tag of the tool call it belongs to (the test tool echoes the caller's tag). */
  tag: string;
  /** 1..N for progress notifications, `'result'` for the tool's result. */
  index: number | 'result';
  /** The SSE id it came with (`undefined`: no id). */
  id?: string;
}

/** What the reconnect looked like on the wire. */
export interface ReconnectObservationRecord {
  /** The cursor sent (`null`: no Last-Event-ID). */
  cursor: string | null;
  /** HTTP status, or `null` when no answer came within the bound. */
  status: number | null;
  /** How the resumed stream ended. */
  ending: 'end' | 'timeout' | 'error' | 'not-read' | 'complete';
  /** Messages received on the resumed stream, in order. */
  delivered: Delivered[];
}

/** The ground truth of one scenario run: what the server owed and what arrived. */
export interface GroundTruth {
  /** Messages the resumed stream owed, in order (cursor+1 .. result). */
  expected: Delivered[];
  /** Messages owed that never arrived. */
  lost: Delivered[];
  /** Messages that arrived more than once. */
  duplicated: Delivered[];
  /** `true` when owed messages arrived out of order. */
  reordered: boolean;
  /** Messages that belong to another call or session. */
  foreign: Delivered[];
  /** Whether the tool's result arrived. */
  resultArrived: boolean;
}

/** The outcome of one scenario against one implementation. */
export interface CellResult {
  implementation: string;
  scenario: string;
  verdict: CellVerdict;
  /** The observed answer in words: status, what arrived against the ground truth. */
  observed: string;
  /** Why the scenario was not run (verdict `n/a`). */
  reason?: string;
  /** The reconnects the scenario made (empty when not run). */
  reconnects: ReconnectObservationRecord[];
  /** Ground truth of the final reconnect (absent when not run). */
  truth?: GroundTruth;
  /** The recorded trace, format v1, one JSON object per line. */
  trace: string[];
  /** `true` when this cell is a security finding (another session's data was replayed). */
  security?: boolean;
  /**
   * Something wrong beside the verdict, in one line: after-restart's unknown session answered
   * with another status than 404 (only a 404 makes a client re-initialize).
   */
  finding?: string;
  /** Wall-clock duration of the run (ms). */
  ms: number;
  /** The protocol version the server answered in `initialize` (absent when none was run). */
  protocolVersion?: string;
}
