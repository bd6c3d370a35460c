/**
 * What a scenario is and gets to work with: the context the matrix gives it, and what it
 * returns for judging.
 */
import type { RecordingClient, TraceRecorder } from '../recording/recorder.js';
import type { CallFollower } from '../recording/call-follower.js';
import type { SseStream } from '../recording/sse-client.js';
import type { ReplayPause } from '../replay-window.js';
import {
  NOT_RESUMABLE,
  type CellVerdict,
  type HarnessControl,
  type GroundTruth,
  type ImplementationAdapter,
  type ReconnectObservationRecord,
} from '../types.js';

export { NOT_RESUMABLE };

/** What a scenario gets to work with. */
export interface ScenarioContext {
  adapter: ImplementationAdapter;
  url: string;
  control: HarnessControl;
  trace: TraceRecorder;
  /**
   * The tag of the scenario's call `base` (`A`, `B`). In process it is `base`; against a
   * server that outlives the cell (`--url`) it is made unique per cell, so that holds of one
   * cell never release or block another's.
   */
  tag(base: string): string;
  /** The protocol version the harness asks for in `initialize`. */
  protocolVersion: string;
  /** The server's keepalive interval (ms). */
  keepAliveMs: number;
  /** The server's retention (events), where it can be set. */
  retention: number;
  /** Bound on every request (ms): no headers by then is a hang. */
  timeoutMs: number;
  /** Silence on an open stream for this long means nothing more is coming (ms). */
  idleMs: number;
  /** Clients the scenario opened (closed by the runner). */
  clients: RecordingClient[];
  /** Streams the scenario opened (aborted by the runner). */
  streams: SseStream[];
  /**
   * The tool calls' streams the scenario opened, with their session: when a call's message
   * does not come on its own stream, the others are searched for it (a leak, not a hang).
   */
  calls?: OpenCall[];
  /**
   * Watch where else a call's messages go (set for a server the harness cannot reach into,
   * `--url`): every session the scenario opens also opens its standalone GET stream, as the SDK
   * clients do, and one more session (the witness) opens nothing else. A server that writes a
   * call's messages to a standalone stream, or to every session, is then a `leak` (another
   * session's: a security finding), not a `hang` (issue 27, misjudgment 2).
   */
  watch?: boolean;
  /** The standalone streams opened for {@link watch}, with their session. */
  watchers?: Watcher[];
  /**
   * The slowed store's first replay, held after its read until the scenario lets it go on
   * (present for a scenario with {@link Scenario.pauseReplay}; the adapter honours it when its
   * store is slowed and it passes `StartOptions.onReplayRead` on).
   */
  replay?: ReplayPause;
}

/** A standalone GET stream the harness reads only to find messages that should not be there. */
export interface Watcher {
  /** `standalone stream of session 1`, `the witness session's standalone stream`. */
  name: string;
  stream: SseStream;
  follower: CallFollower;
  client: RecordingClient;
}

/** One open tool call's stream, as {@link ScenarioContext.calls} keeps it. */
export interface OpenCall {
  tag: string;
  stream: SseStream;
  follower: CallFollower;
  client: RecordingClient;
}

/** What a scenario found. */
export interface ScenarioRun {
  reconnects: ReconnectObservationRecord[];
  truth: GroundTruth;
  verdict: CellVerdict;
  observed: string;
  /** Why the scenario could not be judged (verdict `n/a`). */
  reason?: string;
  security?: boolean;
  /** Something wrong beside the verdict (`CellResult.finding`). */
  finding?: string;
}

/** A named scenario. */
export interface Scenario {
  name: string;
  /** One line: what it does. */
  title: string;
  /** Delay (ms) the adapter's event store adds to each operation in this scenario. */
  storeDelayMs?: number;
  /**
   * Hold the slowed store's first replay after its read (`StartOptions.onReplayRead`, and
   * `StartOptions.onFencedWrite` for a store behind a fence) until the scenario releases it:
   * {@link ScenarioContext.replay}.
   */
  pauseReplay?: boolean;
  /**
   * Its loss is wrong even without a cursor (after-restart: a 200 for a session the restarted
   * server cannot know): against a server whose events carry no ids it keeps its verdict
   * instead of becoming `n/a` ("not resumable").
   */
  judgedWithoutCursor?: boolean;
  /** Why it cannot run against `adapter` (`null`: it can). */
  requires?(adapter: ImplementationAdapter): string | null;
  /** Runs the scenario against the started implementation and judges what arrived. */
  run(ctx: ScenarioContext): Promise<ScenarioRun>;
}
