/**
 * The streaming trace checker. It reads a trace one line at a time, feeds every observation to
 * the client machine (`model/client-machine.ts`, run by ./engine.ts), and judges each reconnect
 * by the outcome the machine reaches in that reconnect's judgement window; a reconnect still
 * pending when its window closes is settled with PROOF_TIMEOUT, as `settle()` in model/run.ts
 * does. It holds no rule of its own: what is resumed, delayed or failed is the machine's
 * decision.
 *
 * Memory is constant in the length of the trace: a reconnect is reported (and forgotten) when
 * its window closes. What it keeps: the machine's snapshot, the reconnect being judged, the
 * last id received per stream, and the breaks found while a window is open (so that reports
 * come out in line order).
 */
import { PENDING_STATES, type ClientMachine } from '../../model/client-machine.js';
import type { Observation } from '../../model/observations.js';
import { isAccepting, type Outcome, type ReasonCode } from '../../model/outcomes.js';
import { RULE_OF } from '../../model/rules.js';
import { engineFor, type Engine, type EngineName, type MachineState } from './engine.js';
import { compileIdPattern, parseTraceLine, TraceInputError, type IdPattern } from './format.js';
import type { TraceLine } from './format.js';
import {
  isViolation,
  VERDICTS,
  type BreakReport,
  type CheckSummary,
  type CursorAheadReport,
  type ReconnectReport,
  type Verdict,
} from './report.js';

/** Options of the checker. */
export interface CheckOptions {
  /** Reads sequence numbers out of opaque string ids: a regex with a named group `seq`. */
  idPattern?: RegExp | string;
  /** Count false alarms and misclassifications as violations (exit status 1). */
  strict?: boolean;
  /** The machine that decides; the real client machine unless a test injects a mutant. */
  machine?: ClientMachine;
  /** How the machine is run (./engine.ts); `compiled` unless a test compares the two. */
  engine?: EngineName;
}

/** Where the streaming checker sends its findings, in line order. */
export interface CheckSink {
  /** A reconnect, judged when its window closes. */
  reconnect?(r: ReconnectReport): void;
  /** A continuity break inside an accepted stream. */
  break?(b: BreakReport): void;
  /** A reconnect whose cursor is ahead of the last id received. */
  cursorAhead?(c: CursorAheadReport): void;
}

/** States whose stream the machine has accepted and no reconnect is being judged in. */
const ACCEPTED_STREAM_STATES: readonly string[] = ['streaming', 'resumed'];

/** States in which a reconnect is still being judged: its window closes with PROOF_TIMEOUT. */
const PENDING: readonly string[] = PENDING_STATES;

/** The machine's decision on the reconnect being judged. */
interface Decided {
  outcome: Outcome;
  code: ReasonCode | null;
  text: string;
  line: number;
}

/** The reconnect whose judgement window is open. */
interface OpenReconnect {
  line: number;
  cursor: number | null;
  stream?: string;
  /** The first decisive outcome (resumed, resumption-failed, session-lost). */
  decided: Decided | null;
  /** The machine said delayed: kept unless a decisive outcome follows in the window. */
  delayed: Decided | null;
  actual?: Outcome;
  decisionLine?: number;
}

type Finding = { kind: 'break'; value: BreakReport } | { kind: 'ahead'; value: CursorAheadReport };

/** Empty per-outcome counters. */
function outcomeCounts(): Record<Outcome, number> {
  return { resumed: 0, delayed: 0, 'resumption-failed': 0, 'session-lost': 0 };
}

/** Compares the implementation's decision with the oracle's. */
export function verdictOf(expected: Outcome, actual: Outcome | undefined): Verdict {
  if (actual === undefined) return 'unchecked';
  const e = isAccepting(expected);
  const a = isAccepting(actual);
  if (e && a) return 'ok';
  if (!e && a) return 'unsafe-accept';
  if (e && !a) return 'false-alarm';
  return expected === actual ? 'ok' : 'misclassified';
}

function verdictText(
  verdict: Verdict,
  expected: Outcome,
  actual: Outcome | undefined,
  why: string,
) {
  switch (verdict) {
    case 'unchecked':
      return `no decision line; the oracle says ${expected}: ${why}`;
    case 'ok':
      return actual === expected
        ? `the implementation said ${actual}, as the oracle does: ${why}`
        : `the implementation said ${actual}, the oracle says ${expected}; both accept: ${why}`;
    case 'unsafe-accept':
      return `the implementation accepted (${actual}) a reconnect the oracle says is ${expected}: ${why}`;
    case 'false-alarm':
      return `the implementation escalated (${actual}) a reconnect the oracle says is ${expected}: ${why}`;
    case 'misclassified':
      return `the implementation said ${actual}, the oracle says ${expected}: ${why}`;
  }
}

/** Maps a trace line that the machine observes to its observation (`null`: not an observation). */
export function observationOf(l: TraceLine): Observation | null {
  switch (l.type) {
    case 'open':
      return l.epoch === undefined
        ? { type: 'OPEN', status: l.status }
        : { type: 'OPEN', status: l.status, epoch: l.epoch };
    case 'event':
      if (l.id === undefined) return { type: 'KEEPALIVE' };
      return l.stream === undefined
        ? { type: 'EVENT', id: l.id }
        : { type: 'EVENT', id: l.id, stream: l.stream };
    case 'keepalive':
      return { type: 'KEEPALIVE' };
    case 'idle-timeout':
      return { type: 'IDLE_TIMEOUT' };
    case 'disconnect':
      return { type: 'DISCONNECT' };
    case 'end':
      return { type: 'END' };
    case 'reconnect':
      return l.stream === undefined
        ? { type: 'RECONNECT', cursor: l.cursor }
        : { type: 'RECONNECT', cursor: l.cursor, stream: l.stream };
    case 'response': {
      const o: Observation = { type: 'RESPONSE', status: l.status };
      if (l.floor !== undefined) o.floor = l.floor;
      if (l.epoch !== undefined) o.epoch = l.epoch;
      if (l.durable !== undefined) o.durable = l.durable;
      return o;
    }
    case 'decision':
      return null;
  }
}

const IMPLICIT_OPEN: Observation = { type: 'OPEN', status: 200 };
const PROOF_TIMEOUT: Observation = { type: 'PROOF_TIMEOUT' };

/**
 * Checks a trace line by line. `push` each line (without its newline), then `finish`.
 * Findings go to the sink as soon as they are final, in line order. `push` throws a
 * {@link TraceInputError} on bad input; the checker must not be used after that.
 */
export class TraceChecker {
  private readonly engine: Engine;
  private readonly idPattern: IdPattern | undefined;
  private readonly strict: boolean;
  private snap: MachineState;
  private lineNo = 0;
  private current: OpenReconnect | null = null;
  private held: Finding[] = [];
  private lastOverall: number | undefined = undefined;
  private lastByStream = new Map<string, number>();
  private readonly counts = {
    reconnects: 0,
    expected: outcomeCounts(),
    verdicts: Object.fromEntries(VERDICTS.map((v) => [v, 0])) as Record<Verdict, number>,
    breaks: 0,
    cursorAhead: 0,
  };

  constructor(
    options: CheckOptions = {},
    private readonly sink: CheckSink = {},
  ) {
    this.engine = engineFor(options.machine, options.engine);
    this.idPattern =
      options.idPattern === undefined ? undefined : compileIdPattern(options.idPattern);
    this.strict = options.strict ?? false;
    this.snap = this.engine.initial();
  }

  /** Lines read so far. */
  get lines(): number {
    return this.lineNo;
  }

  /** Reads one line of the trace. */
  push(text: string): void {
    const line = ++this.lineNo;
    const l = parseTraceLine(text, line, this.idPattern);
    if (l === null) return;
    switch (l.type) {
      case 'decision':
        if (!this.current) throw new TraceInputError(line, 'decision with no reconnect before it');
        this.current.actual = l.outcome;
        this.current.decisionLine = line;
        return;
      case 'response':
        if (!this.current) throw new TraceInputError(line, 'response with no reconnect before it');
        break;
      case 'open':
        if (l.status === 200) {
          this.lastOverall = undefined;
          this.lastByStream.clear();
        }
        break;
      case 'reconnect':
        this.closeWindow(line, 'the next reconnect');
        this.openStreamIfNone(line);
        this.checkCursor(line, l.cursor, l.stream);
        this.counts.reconnects++;
        this.current = { line, cursor: l.cursor, decided: null, delayed: null };
        if (l.stream !== undefined) this.current.stream = l.stream;
        break;
      case 'event':
        if (l.id !== undefined) {
          this.lastOverall = l.id;
          this.lastByStream.set(l.stream ?? '', l.id);
        }
        this.openStreamIfNone(line);
        break;
      default:
        this.openStreamIfNone(line);
    }
    this.observe(observationOf(l) as Observation, line);
  }

  /** Closes the last judgement window and returns the summary. */
  finish(): CheckSummary & { exitCode: 0 | 1 } {
    this.closeWindow(this.lineNo, 'the end of the trace');
    const c = this.counts;
    let violations = c.breaks + c.cursorAhead;
    for (const v of VERDICTS) if (isViolation(v, this.strict)) violations += c.verdicts[v];
    return {
      lines: this.lineNo,
      reconnects: c.reconnects,
      expected: { ...c.expected },
      verdicts: { ...c.verdicts },
      breaks: c.breaks,
      cursorAhead: c.cursorAhead,
      violations,
      strict: this.strict,
      exitCode: violations > 0 ? 1 : 0,
    };
  }

  /** A line that needs a stream, before any stream was opened: the stream is taken as open. */
  private openStreamIfNone(line: number): void {
    if (this.snap.value === 'connecting') this.observe(IMPLICIT_OPEN, line);
  }

  private checkCursor(line: number, cursor: number | null, stream: string | undefined): void {
    if (cursor === null) return;
    const last = stream === undefined ? this.lastOverall : this.lastByStream.get(stream);
    if (last === undefined || cursor <= last) return;
    const ahead: CursorAheadReport = { line, cursor, lastReceived: last };
    if (stream !== undefined) ahead.stream = stream;
    this.counts.cursorAhead++;
    this.emit({ kind: 'ahead', value: ahead });
  }

  /** Steps the machine and reads what it decided, if anything. */
  private observe(o: Observation, line: number): void {
    const prev = this.snap;
    const next = this.engine.step(prev, o);
    this.snap = next;
    const reason = next.context.reason;
    if (reason === null || reason === prev.context.reason) return; // no decision
    if (o.type === 'EVENT' && ACCEPTED_STREAM_STATES.includes(prev.value)) {
      const b: BreakReport = {
        line,
        expected: (prev.context.cursor ?? -1) + 1,
        got: o.id,
        reason: reason.text,
      };
      if (o.stream !== undefined) b.stream = o.stream;
      this.counts.breaks++;
      this.emit({ kind: 'break', value: b });
      return;
    }
    const cur = this.current;
    const outcome = next.context.outcome;
    if (!cur || cur.decided || outcome === null) return;
    const d: Decided = { outcome, code: reason.code, text: reason.text, line };
    if (outcome === 'delayed') cur.delayed = d;
    else cur.decided = d;
  }

  private emit(f: Finding): void {
    if (this.current) this.held.push(f);
    else this.deliver(f);
  }

  private deliver(f: Finding): void {
    if (f.kind === 'break') this.sink.break?.(f.value);
    else this.sink.cursorAhead?.(f.value);
  }

  /** Closes the judgement window of the reconnect being judged, and reports it. */
  private closeWindow(line: number, by: string): void {
    const cur = this.current;
    if (!cur) return;
    const settles = !cur.decided && PENDING.includes(this.snap.value);
    if (settles) this.observe(PROOF_TIMEOUT, line);
    const d = cur.decided ?? cur.delayed;
    if (!d) {
      throw new Error(
        `the machine left the reconnect of line ${cur.line} undecided in state ${this.snap.value}`,
      );
    }
    let text = d.text;
    if (settles && d === cur.decided) {
      text += ` (still unproven when the judgement window closed at line ${line}: ${by})`;
    } else if (d.outcome === 'delayed') {
      text += ` (no event before the judgement window closed at line ${line}: ${by})`;
    }
    const verdict = verdictOf(d.outcome, cur.actual);
    const r: ReconnectReport = {
      line: cur.line,
      cursor: cur.cursor,
      ...(cur.stream !== undefined ? { stream: cur.stream } : {}),
      expected: d.outcome,
      ...(cur.actual !== undefined ? { actual: cur.actual } : {}),
      verdict,
      reason: verdictText(verdict, d.outcome, cur.actual, text),
      code: d.code,
      rule: d.code === null ? null : RULE_OF[d.code],
      decidedAt: d.line,
      ...(cur.decisionLine !== undefined ? { decisionLine: cur.decisionLine } : {}),
    };
    this.counts.expected[d.outcome]++;
    this.counts.verdicts[verdict]++;
    this.current = null;
    this.sink.reconnect?.(r);
    const held = this.held;
    this.held = [];
    for (const f of held) this.deliver(f);
  }
}
