/**
 * The streaming trace checker. It reads a trace one line at a time, feeds every observation to
 * the client machine (`model/client-machine.ts`, run by ./engine.ts), and judges each reconnect
 * by the outcome the machine reaches in that reconnect's judgement window; a reconnect still
 * pending when its window closes is settled with PROOF_TIMEOUT, as `settle()` in model/run.ts
 * does. It holds no rule of its own: what is resumed, delayed or failed is the machine's
 * decision.
 *
 * Polling (MCP 2025-11-25): a resumed stream that the server ends before any event leaves the
 * machine in `polling`, and a next reconnect with the same cursor continues the same *episode*
 * instead of closing the window. An episode is judged as one: every reconnect of it gets the
 * episode's outcome; a `delayed` decision on a poll that is not the episode's last is the
 * waiting that polling is, and is never a violation. With `proofBudget` and `t` fields, an
 * episode still unproven more than that many ms after its first reconnect has failed.
 *
 * Memory is constant in the length of the trace: a reconnect is reported (and forgotten) when
 * its window closes. What it keeps: the machine's snapshot, the episode being judged (one small
 * record per poll), the last id received per stream, and the breaks found while a window is
 * open (so that reports come out in line order).
 */
import { PENDING_STATES, type ClientMachine } from '../../model/client-machine.js';
import type { Observation } from '../../model/observations.js';
import { isAccepting, type Outcome, type ReasonCode } from '../../model/outcomes.js';
import { RULE_OF } from '../../model/rules.js';
import {
  bindingNamed,
  mcpSse,
  phraseOf,
  BINDING_NAMES,
  type Binding,
} from '../../model/bindings/index.js';
import type { TaskNote } from '../../model/bindings/mcp-tasks.js';
import { isObservation, lineReaderFor, readBindingHeader, type LineReader } from './bindings.js';
import { episodeGoesOn, isBudgeted } from '../../model/run.js';
import { engineFor, type Engine, type EngineName, type MachineState } from './engine.js';
import { compileIdPattern, parseTraceLine, TraceInputError, type IdPattern } from './format.js';
import type { TimedTraceLine, TraceLine } from './format.js';
import {
  isViolation,
  VERDICTS,
  type BreakReport,
  type CheckSummary,
  type CursorAheadReport,
  type DroppedCallReport,
  type ReconnectReport,
  type Verdict,
} from './report.js';

/** Options of the checker. */
export interface CheckOptions {
  /** Reads sequence numbers out of opaque string ids: a regex with a named group `seq`. */
  idPattern?: RegExp | string;
  /** Count false alarms and misclassifications as violations (exit status 1). */
  strict?: boolean;
  /**
   * The machine that decides; the real client machine unless a test injects a mutant. Any
   * machine over the same observations and context is judged the same way: the first decisive
   * outcome in a window is the reconnect's (a later one does not replace it; a delay is kept only
   * until a decisive outcome follows), a decision with no window open is nobody's, a reason
   * without an outcome decides nothing, and the settling PROOF_TIMEOUT goes only to a machine in
   * a pending state (properties/trace/custom-machine.test.ts).
   */
  machine?: ClientMachine;
  /** How the machine is run (./engine.ts); `compiled` unless a test compares the two. */
  engine?: EngineName;
  /**
   * Proof budget in ms, measured on the lines' `t` fields from an episode's first reconnect:
   * an episode still unproven past it has failed (rule 7). Without it (or without `t`), an
   * episode is unproven until its window closes.
   */
  proofBudget?: number;
  /**
   * The binding the trace is read under (model/bindings/): a name (`mcp-sse`, the default, or
   * `mcp-tasks`) or a binding (a mutant, for tests). A binding line at the head of the trace
   * names it too; when both are given and differ, the trace is bad input.
   */
  binding?: string | Binding;
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

/** The note given once when a trace has events without an id. */
export const IDLESS_NOTE =
  'events without an id are id-less data (DATA): delivered, never replayable, and a reconnect after one cannot be proven; before version 0.2 check read them as keepalives';

/** States whose stream the machine has accepted and no reconnect is being judged in. */
const ACCEPTED_STREAM_STATES: readonly string[] = ['streaming', 'resumed'];

/** States in which a reconnect is still being judged: its window closes with PROOF_TIMEOUT. */
const PENDING: readonly string[] = PENDING_STATES;

/** The machine's decision on the reconnect being judged. */
interface Decided {
  outcome: Outcome;
  code: ReasonCode;
  text: string;
  line: number;
}

/** One reconnect of an episode. */
interface Poll {
  line: number;
  cursor: number | null;
  /** The call's `after`, when a binding noted one (`tasks/stream`). */
  after?: number | null;
  stream: string | undefined;
  actual?: Outcome;
  decisionLine?: number;
}

/**
 * The episode whose judgement window is open: one reconnect, or several with one cursor when
 * the server ended each resumed stream before any event (polling).
 */
interface OpenReconnect {
  /** The reconnects of the episode, in order; decisions go to the last one. */
  polls: Poll[];
  /** `t` of the episode's first reconnect, when the budget is measured. */
  startT: number | undefined;
  /**
   * Line of the episode's first reconnect: the window's first one, or an earlier delayed
   * reconnect of the same cursor whose budget this window goes on with (rule 7.1).
   */
  startLine: number;
  /** The first decisive outcome (resumed, resumption-failed, session-lost). */
  decided: Decided | null;
  /** The machine said delayed: kept unless a decisive outcome follows in the window. */
  delayed: Decided | null;
  /** Line at which the proof budget ran out, if it did. */
  budgetLine?: number;
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
      if (l.id === undefined) return { type: 'DATA' };
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
      if (l.head !== undefined) o.head = l.head;
      if (l.epoch !== undefined) o.epoch = l.epoch;
      if (l.durable !== undefined) o.durable = l.durable;
      return o;
    }
    case 'decision':
      return null;
  }
}

/** The binding of the options: a binding, a known name, or none (the trace's line, or mcp-sse). */
function bindingOf(b: string | Binding | undefined): Binding | undefined {
  if (b === undefined || typeof b !== 'string') return b;
  const found = bindingNamed(b);
  if (found === undefined) {
    throw new Error(
      `unknown binding ${JSON.stringify(b)} (expected one of ${BINDING_NAMES.join(', ')})`,
    );
  }
  return found;
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
  private budget: number | undefined;
  /** The binding chosen by the options, if any (a binding line must then agree). */
  private readonly chosen: Binding | undefined;
  /** Reads a line under a non-native binding; `undefined`: native lines (`mcp-sse`). */
  private readLine: LineReader | undefined;
  /** The binding the trace is read under: its words phrase the machine's reasons. */
  private binding: Binding;
  private snap: MachineState;
  private readonly notes: string[] = [];
  private lineNo = 0;
  private current: OpenReconnect | null = null;
  private held: Finding[] = [];
  /** The latest `t` read (only with a budget) and its line. */
  private lastT: { t: number; line: number } | undefined = undefined;
  /**
   * The last id received since the last open, on any stream: what a reconnect that names no
   * stream is compared with. A field rather than a map entry: it is set on every event line.
   */
  private lastAnyId: number | undefined = undefined;
  /** The last id received since the last open, per stream name (events that name one). */
  private lastIdOf = new Map<string, number>();
  /**
   * For `check --strict`: the call's stream ended without its response (the line and the
   * cursor), and no reconnect came yet; `responded` once an event marked `response` came since
   * the last open; `marksResponses` once any did (a trace without marks cannot show a drop);
   * `gaveUp` once the client decided the resumption failed or the session was lost (it
   * surfaced the loss).
   */
  private ended: DroppedCallReport | null = null;
  private responded = false;
  private marksResponses = false;
  private gaveUp = false;
  private readonly dropped: DroppedCallReport[] = [];
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
    if (
      options.proofBudget !== undefined &&
      !(Number.isFinite(options.proofBudget) && options.proofBudget >= 0)
    ) {
      throw new Error(
        `proofBudget must be a non-negative number of ms, got ${options.proofBudget}`,
      );
    }
    this.budget = options.proofBudget;
    this.chosen = bindingOf(options.binding);
    this.binding = this.chosen ?? mcpSse;
    this.readLine = lineReaderFor(this.binding, this.idPattern);
    this.snap = this.engine.initial();
  }

  /** The name of the binding the trace is read under (known once its first line was read). */
  get bindingName(): string {
    return this.binding.name;
  }

  /** Lines read so far. */
  get lines(): number {
    return this.lineNo;
  }

  /** Reads one line of the trace. */
  push(text: string): void {
    const line = ++this.lineNo;
    if (line === 1 && this.readHeader(text)) return;
    if (this.readLine !== undefined) {
      for (const item of this.readLine(text, line, this.budget !== undefined)) {
        if (isObservation(item)) this.takeObservation(item, line, item.t);
        else this.take(item, line);
      }
      return;
    }
    const l = parseTraceLine(text, line, this.idPattern, this.budget !== undefined);
    if (l === null) return;
    this.take(l, line);
  }

  /** The binding line at the head of a trace: it chooses the binding and may set the budget. */
  private readHeader(text: string): boolean {
    const header = readBindingHeader(text, 1);
    if (header === null) return false;
    const { binding, proofBudget } = header;
    if (this.chosen === undefined) {
      this.binding = binding;
      this.readLine = lineReaderFor(binding, this.idPattern);
    } else if (this.chosen.name !== binding.name) {
      throw new TraceInputError(
        1,
        `the binding line says ${binding.name}, but the binding chosen (--binding) is ${this.chosen.name}`,
      );
    }
    // A budget given by the caller (--proof-budget) wins over the trace's.
    if (this.budget === undefined) this.budget = proofBudget;
    return true;
  }

  /** Checks one line of the native format. */
  private take(l: TimedTraceLine, line: number): void {
    if (l.type === 'event' && l.response === true) {
      this.responded = true;
      this.marksResponses = true;
    }
    if (
      l.type === 'decision' &&
      (l.outcome === 'resumption-failed' || l.outcome === 'session-lost')
    )
      this.gaveUp = true;
    if (l.type !== 'decision') {
      this.takeObservation(observationOf(l) as Observation, line, l.t);
      return;
    }
    if (l.t !== undefined) this.takeTime(line, l.t);
    const poll = this.current?.polls[this.current.polls.length - 1];
    if (!poll) throw new TraceInputError(line, 'decision with no reconnect before it');
    poll.actual = l.outcome;
    poll.decisionLine = line;
  }

  private takeTime(line: number, t: number): void {
    this.checkTimeOrder(line, t);
    this.checkBudget(line, t);
  }

  /**
   * Checks one observation: read from a native line, or translated by a binding from a wire
   * fact (then it comes here as the binding made it, with the fact's `t`).
   */
  private takeObservation(o: Observation, line: number, t: number | undefined): void {
    if (t !== undefined) this.takeTime(line, t);
    switch (o.type) {
      case 'RESPONSE': {
        const cur = this.current;
        if (!cur) throw new TraceInputError(line, 'response with no reconnect before it');
        // The binding noted that the answer told the client the gap (`events_gone`): a later
        // cursor up to it (SEP-2694's recovery, `after = earliestSeq - 1`) is the receiver's
        // skip, surfaced, not the client's own.
        const told = (o as Observation & TaskNote).told;
        const stream = cur.polls[cur.polls.length - 1]!.stream;
        if (told !== undefined && stream !== undefined) {
          this.lastIdOf.set(stream, Math.max(this.lastIdOf.get(stream) ?? -1, told));
        }
        break;
      }
      case 'OPEN':
        if (o.status === 200) {
          this.closeCall();
          this.lastAnyId = undefined;
          this.lastIdOf.clear();
        }
        break;
      case 'END':
      case 'DISCONNECT':
        if (!this.responded && !this.gaveUp && this.lastAnyId !== undefined)
          this.ended ??= { line, cursor: this.lastAnyId };
        this.openStreamIfNone(line);
        break;
      case 'RECONNECT': {
        const poll: Poll = { line, cursor: o.cursor, stream: o.stream };
        const noted = (o as Observation & TaskNote).after;
        if (noted !== undefined) poll.after = noted;
        if (this.continuesEpisode(poll)) {
          this.current!.polls.push(poll);
        } else {
          // After a delayed reconnect with no event since, the same cursor goes on with the
          // episode's budget (rule 7.1), though the delayed decision stands and is judged apart.
          const keeps = this.keepsBudget(poll);
          const startT = keeps ? this.current!.startT : t;
          const startLine = keeps ? this.current!.startLine : line;
          this.closeWindow(line, 'the next reconnect');
          this.openStreamIfNone(line);
          this.current = { polls: [poll], startT, startLine, decided: null, delayed: null };
        }
        this.checkCursor(line, o.cursor, o.stream);
        this.ended = null;
        this.counts.reconnects++;
        break;
      }
      case 'EVENT':
        this.lastAnyId = o.id;
        if (o.stream !== undefined) this.lastIdOf.set(o.stream, o.id);
        this.openStreamIfNone(line);
        break;
      case 'DATA':
        if (this.notes.length === 0) this.notes.push(`line ${line}: ${IDLESS_NOTE}`);
        this.openStreamIfNone(line);
        break;
      default:
        this.openStreamIfNone(line);
    }
    this.observe(o, line);
  }

  /** Closes the last judgement window and returns the summary. */
  finish(): CheckSummary & { exitCode: 0 | 1 } {
    this.closeWindow(this.lineNo, 'the end of the trace');
    this.closeCall();
    const c = this.counts;
    let violations = c.breaks + c.cursorAhead;
    if (this.strict && this.marksResponses) violations += this.dropped.length;
    else if (this.strict && this.dropped.length > 0) {
      const d = this.dropped[0]!;
      this.notes.push(
        `line ${d.line}: a stream ended after id ${d.cursor} with no reconnect, but the trace marks no response ("response": true on the event that carries it), so a dropped call cannot be told from a finished one`,
      );
    }
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
      ...(this.notes.length > 0 ? { notes: [...this.notes] } : {}),
      ...(this.strict && this.marksResponses && this.dropped.length > 0
        ? { dropped: [...this.dropped] }
        : {}),
      exitCode: violations > 0 ? 1 : 0,
    };
  }

  /** The call of the last open is over (a new open, or the trace's end): was it dropped? */
  private closeCall(): void {
    if (this.ended !== null) this.dropped.push(this.ended);
    this.ended = null;
    this.responded = false;
    this.gaveUp = false;
  }

  /**
   * A reconnect continues the open episode when the machine is polling (the server ended the
   * resumed stream before any event) and it sends the same cursor, on the same stream.
   */
  private continuesEpisode(poll: Poll): boolean {
    return this.snap.value === 'polling' && this.sameCursor(poll);
  }

  /**
   * A reconnect keeps the open episode's proof budget when it continues the episode, or when
   * the episode was delayed with no event since and it sends the same cursor (rule 7.1).
   */
  private keepsBudget(poll: Poll): boolean {
    return episodeGoesOn(this.snap) && this.sameCursor(poll);
  }

  /** The reconnect sends the cursor of the open, undecided episode, on the same stream. */
  private sameCursor(poll: Poll): boolean {
    const cur = this.current;
    if (!cur || cur.decided) return false;
    const last = cur.polls[cur.polls.length - 1]!;
    return poll.cursor === last.cursor && poll.stream === last.stream;
  }

  /**
   * `t` is read only with a budget, and the budget is measured on it: a `t` that goes back
   * (a clock reset, lines out of order) would shrink an elapsed time and turn an over-budget
   * episode into a proven one. It is bad input.
   */
  private checkTimeOrder(line: number, t: number): void {
    const last = this.lastT;
    if (last !== undefined && t < last.t) {
      throw new TraceInputError(
        line,
        `t ${t} is earlier than t ${last.t} on line ${last.line}: with a proof budget, t must not decrease`,
      );
    }
    this.lastT = { t, line };
  }

  /** The proof budget ran out before this line: the unproven or delayed episode has failed. */
  private checkBudget(line: number, t: number): void {
    const cur = this.current;
    if (this.budget === undefined || !cur || cur.decided || cur.startT === undefined) return;
    if (!isBudgeted(this.snap) || t - cur.startT <= this.budget) return;
    cur.budgetLine = line;
    this.observe(PROOF_TIMEOUT, line);
  }

  /** A line that needs a stream, before any stream was opened: the stream is taken as open. */
  private openStreamIfNone(line: number): void {
    if (this.snap.value === 'connecting') this.observe(IMPLICIT_OPEN, line);
  }

  private checkCursor(line: number, cursor: number | null, stream: string | undefined): void {
    if (cursor === null) return;
    const last = stream === undefined ? this.lastAnyId : this.lastIdOf.get(stream);
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
        reason: phraseOf(this.binding, reason.code, reason.text),
      };
      if (o.stream !== undefined) b.stream = o.stream;
      this.counts.breaks++;
      this.emit({ kind: 'break', value: b });
      return;
    }
    const cur = this.current;
    const outcome = next.context.outcome;
    if (!cur || cur.decided || outcome === null) return;
    // What the receiver said, in the binding's words, when the binding noted it on the answer.
    const said = (o as Observation & TaskNote).said;
    const text = said ?? phraseOf(this.binding, reason.code, reason.text);
    const d: Decided = { outcome, code: reason.code, text, line };
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

  /** Closes the judgement window of the episode being judged, and reports its reconnects. */
  private closeWindow(line: number, by: string): void {
    const cur = this.current;
    if (!cur) return;
    const settles = !cur.decided && PENDING.includes(this.snap.value);
    if (settles) this.observe(PROOF_TIMEOUT, line);
    const d = cur.decided ?? cur.delayed;
    const first = cur.polls[0]!;
    if (!d) {
      throw new Error(
        `the machine left the reconnect of line ${first.line} undecided in state ${this.snap.value}`,
      );
    }
    let text = d.text;
    // The budget and the settling PROOF_TIMEOUT always decide: the decision is theirs.
    if (cur.budgetLine !== undefined) {
      text += ` (the proof budget of ${this.budget} ms from line ${cur.startLine} ran out by line ${cur.budgetLine})`;
    } else if (settles) {
      text += ` (still unproven when the judgement window closed at line ${line}: ${by})`;
    } else if (d.outcome === 'delayed') {
      text += ` (no event before the judgement window closed at line ${line}: ${by})`;
    }
    const n = cur.polls.length;
    const lastLine = cur.polls[n - 1]!.line;
    const tasks = this.binding.name === 'mcp-tasks';
    cur.polls.forEach((poll, i) => {
      // Waiting on a poll that the episode went on from is what polling is: never a violation.
      const waited = i < n - 1 && poll.actual === 'delayed';
      const verdict = waited ? 'ok' : verdictOf(d.outcome, poll.actual);
      const reason = waited
        ? `the implementation waited (delayed) on an empty poll and polled again ${tasks ? 'from the same seq' : 'with the same cursor'}: ok; the episode is judged at its last reconnect (line ${lastLine}), where the oracle says ${d.outcome}: ${text}`
        : verdictText(verdict, d.outcome, poll.actual, text);
      // The episode is named by its first and last reconnect, not by every poll's line: a
      // listing in each of n reports would make the output (and the time) quadratic in n.
      const episode =
        n === 1
          ? ''
          : ` [poll ${i + 1} of ${n} ${tasks ? pollOfTask(poll) : `with cursor ${String(poll.cursor)}`}: one episode, reconnects from line ${first.line} to line ${lastLine}]`;
      this.report(poll, d, verdict, reason + episode, { first: first.line, polls: n });
    });
    this.current = null;
    const held = this.held;
    this.held = [];
    for (const f of held) this.deliver(f);
  }

  private report(
    poll: Poll,
    d: Decided,
    verdict: Verdict,
    reason: string,
    episode: { first: number; polls: number },
  ): void {
    const r: ReconnectReport = {
      line: poll.line,
      cursor: poll.cursor,
      ...(poll.after !== undefined ? { after: poll.after } : {}),
      ...(poll.stream !== undefined ? { stream: poll.stream } : {}),
      expected: d.outcome,
      ...(poll.actual !== undefined ? { actual: poll.actual } : {}),
      verdict,
      reason,
      code: d.code,
      rule: RULE_OF[d.code],
      decidedAt: d.line,
      ...(poll.decisionLine !== undefined ? { decisionLine: poll.decisionLine } : {}),
      ...(episode.polls > 1 ? { episode } : {}),
    };
    this.counts.expected[d.outcome]++;
    this.counts.verdicts[verdict]++;
    this.sink.reconnect?.(r);
  }
}

/**
 * A task poll in the task's words: the `after` it sent, or, for a call without one, the seq it
 * resumes from (never the internal cursor -1).
 */
function pollOfTask(poll: Poll): string {
  if (poll.after !== undefined && poll.after !== null) return `with after ${poll.after}`;
  return poll.cursor === null || poll.cursor < 0
    ? "without after, from the task's start"
    : `without after, from seq ${poll.cursor}`;
}
