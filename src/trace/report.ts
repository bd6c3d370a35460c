/**
 * What the trace checker reports: a verdict per reconnect, continuity breaks, cursors ahead of
 * the received events, and a summary. These are the shapes of `check --json` and of
 * {@link checkTrace}'s result.
 */
import type { Outcome, ReasonCode } from '../../model/outcomes.js';

/** The verdict on one reconnect: the implementation's decision against the oracle's. */
export type Verdict = 'ok' | 'unsafe-accept' | 'false-alarm' | 'misclassified' | 'unchecked';

/** Every verdict, in the order reports list them. */
export const VERDICTS: readonly Verdict[] = [
  'ok',
  'unsafe-accept',
  'false-alarm',
  'misclassified',
  'unchecked',
];

/** One reconnect, judged. */
export interface ReconnectReport {
  /** Line of the `reconnect`. */
  line: number;
  /**
   * The `Last-Event-ID` sent (`null`: none). Under `mcp-tasks`: the seq the oracle judges the
   * call after (the call's `after`; for a call without one, the last seq known, or -1 from the
   * task's start).
   */
  cursor: number | null;
  /** Under `mcp-tasks` only: the `after` the `tasks/stream` call sent (`null`: none). */
  after?: number | null;
  /** The stream the cursor belongs to, when known. */
  stream?: string;
  /** The oracle's outcome: what the client machine decides on the same observations. */
  expected: Outcome;
  /** The implementation's outcome (its last `decision` line); absent without one. */
  actual?: string;
  verdict: Verdict;
  /** The verdict in words, with the machine's reason for `expected`. */
  reason: string;
  /** The machine's reason code for `expected` (which rule decided). */
  code: ReasonCode | null;
  /** Rule number of `code` (docs/spec.md, "The rules"; 0: no cursor, no resumption). */
  rule: number | null;
  /** Line at which the oracle's outcome was reached (the window's close for delayed/timeouts). */
  decidedAt: number;
  /** Line of the implementation's last `decision` for this reconnect. */
  decisionLine?: number;
  /**
   * Present when the reconnect is one poll of an episode of several (same cursor, each
   * resumed stream ended before any event): the episode's first reconnect line and its size.
   */
  episode?: { first: number; polls: number };
}

/** A continuity break inside a stream the machine had accepted. */
export interface BreakReport {
  line: number;
  /** The id that should have come: the previous id plus one. */
  expected: number;
  got: number;
  stream?: string;
  /** The machine's reason in words. */
  reason: string;
}

/** A reconnect whose cursor is ahead of the last id the client received: it skips events. */
export interface CursorAheadReport {
  line: number;
  cursor: number;
  /** The last id received on that stream before the reconnect. */
  lastReceived: number;
  stream?: string;
}

/** Counts over the whole trace. */
export interface CheckSummary {
  /** Lines read (blank lines included). */
  lines: number;
  reconnects: number;
  /** Reconnects per expected outcome. */
  expected: Record<Outcome, number>;
  /** Reconnects per verdict. */
  verdicts: Record<Verdict, number>;
  breaks: number;
  cursorAhead: number;
  /** Violations that set exit status 1 (`--strict` counts false alarms and misclassifications). */
  violations: number;
  strict: boolean;
  /** Notes about how lines were read (present only when there is one). */
  notes?: string[];
  /**
   * With `strict`: calls whose stream ended (`end`, `disconnect`) without their response and
   * with no reconnect after it: the client dropped the call (present only when there is one).
   * Only a trace that marks responses (`"response": true` on an event) can show it.
   */
  dropped?: DroppedCallReport[];
}

/** A call's stream that ended without its response, and the client never reconnected. */
export interface DroppedCallReport {
  /** Line of the `end` or `disconnect`. */
  line: number;
  /** The last id received before it. */
  cursor: number;
}

/** The checker's full report. */
export interface CheckReport {
  reconnects: ReconnectReport[];
  breaks: BreakReport[];
  cursorAhead: CursorAheadReport[];
  summary: CheckSummary;
  /** 0: no violation; 1: at least one. (Bad input is a thrown `TraceInputError`, status 2.) */
  exitCode: 0 | 1;
}

/** `true` when a verdict is a violation (exit status 1), under `strict` or not. */
export function isViolation(verdict: Verdict, strict: boolean): boolean {
  if (verdict === 'unsafe-accept') return true;
  return strict && (verdict === 'false-alarm' || verdict === 'misclassified');
}
