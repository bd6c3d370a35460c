/**
 * The judge of one stream: the client machine's state on it, the reconnect whose judgement
 * window is open, the last ids received, and the breaks found while that window is open. The
 * trace checker (./checker.ts) reads lines and hands each judge its stream's observations and
 * decisions: one judge for an SSE trace, one per task under `mcp-tasks` (./task-partition.ts),
 * so that two tasks' calls, interleaved in one recording, are judged each by its own machine.
 * Counters, findings and notes are shared: one report for the whole trace.
 */
import { PENDING_STATES } from '../../model/client-machine.js';
import type { Observation } from '../../model/observations.js';
import { isAccepting, type Outcome, type ReasonCode } from '../../model/outcomes.js';
import { RULE_OF } from '../../model/rules.js';
import { phraseOf, type Binding } from '../../model/bindings/index.js';
import type { TaskNote } from '../../model/bindings/mcp-tasks.js';
import { episodeGoesOn, isBudgeted } from '../../model/run.js';
import type { Engine, MachineState } from './engine.js';
import { TraceInputError, type TimedTraceLine, type TraceLine } from './format.js';
import type {
  BreakReport,
  CursorAheadReport,
  DroppedCallReport,
  ReconnectReport,
  Verdict,
} from './report.js';

/** The note given once per task when a resumed task stream sends a seam duplicate. */
export function seamNote(seq: number): string {
  return `seq ${seq} came again on the answer to a resume, after later seqs (a snapshot/live seam): a duplicate delivery after reconnect, which SEP-2694 makes clients tolerate ("Clients MUST tolerate duplicate delivery after reconnect"); dropped, not a break, with --strict too`;
}

/** The note given once when a trace has events without an id. */
export const IDLESS_NOTE =
  'events without an id are id-less data (DATA): delivered, never replayable, and a reconnect after one cannot be proven; before version 0.2 check read them as keepalives';

/**
 * The most distinct stream names a judge keeps a last id for, since the last open (one map
 * entry each): one more is bad input, so that memory stays bounded however the trace is made.
 */
export const MAX_STREAM_NAMES = 100_000;

/** States whose stream the machine has accepted and no reconnect is being judged in. */
const ACCEPTED_STREAM_STATES: readonly string[] = ['streaming', 'resumed'];

/** States in which a reconnect is still being judged: its window closes with PROOF_TIMEOUT. */
const PENDING: readonly string[] = PENDING_STATES;

/** Where the streaming checker sends its findings, in line order (per task under `mcp-tasks`). */
export interface CheckSink {
  /** A reconnect, judged when its window closes. */
  reconnect?(r: ReconnectReport): void;
  /** A continuity break inside an accepted stream. */
  break?(b: BreakReport): void;
  /** A reconnect whose cursor is ahead of the last id received. */
  cursorAhead?(c: CursorAheadReport): void;
}

/** The counters of a report. */
export interface Counts {
  reconnects: number;
  expected: Record<Outcome, number>;
  verdicts: Record<Verdict, number>;
  breaks: number;
  cursorAhead: number;
}

/** What every judge of one trace shares: how it decides, and where its findings go. */
export interface JudgeShared {
  readonly engine: Engine;
  readonly strict: boolean;
  /** The proof budget (ms), once the trace's first line was read. */
  readonly budget: number | undefined;
  /** The binding the trace is read under: its words phrase the machine's reasons. */
  readonly binding: Binding;
  readonly notes: string[];
  readonly counts: Counts;
  readonly sink: CheckSink;
  /** Bad input unless `t` goes forward over the whole trace (only read with a budget). */
  checkTimeOrder(line: number, t: number): void;
}

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
export function outcomeCounts(): Record<Outcome, number> {
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

const IMPLICIT_OPEN: Observation = { type: 'OPEN', status: 200 };
const PROOF_TIMEOUT: Observation = { type: 'PROOF_TIMEOUT' };

/** Judges the reconnects of one stream (or one task) with its own machine. */
export class StreamJudge {
  private snap: MachineState;
  /** The episode whose judgement window is open. */
  current: OpenReconnect | null = null;
  private held: Finding[] = [];
  /**
   * The last id received since the last open, on any stream: what a reconnect that names no
   * stream is compared with. A field rather than a map entry: it is set on every event line.
   */
  private lastAnyId: number | undefined = undefined;
  /**
   * The last id received since the last open, per stream name (events that name one), at most
   * {@link MAX_STREAM_NAMES} names.
   */
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
  marksResponses = false;
  private gaveUp = false;
  readonly dropped: DroppedCallReport[] = [];
  /** A seam duplicate was noted for this stream (once). */
  private seamNoted = false;

  /** The trace is read in the native vocabulary (no binding translator). */
  private readonly native: boolean;

  constructor(private readonly shared: JudgeShared) {
    this.snap = shared.engine.initial();
    this.native = shared.binding.translator === undefined;
  }

  /** The number of stream names whose last id is kept (bounded by {@link MAX_STREAM_NAMES}). */
  get streamNamesKept(): number {
    return this.lastIdOf.size;
  }

  /** The reconnect being judged has no decision line yet. */
  get awaitsDecision(): boolean {
    const poll = this.current?.polls[this.current.polls.length - 1];
    return poll !== undefined && poll.actual === undefined;
  }

  /** Checks one line of the native format. */
  take(l: TimedTraceLine, line: number): void {
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
    this.shared.checkTimeOrder(line, t);
    this.checkBudget(line, t);
  }

  /**
   * Checks one observation: read from a native line, or translated by a binding from a wire
   * fact (then it comes here as the binding made it, with the fact's `t`).
   */
  takeObservation(o: Observation, line: number, t: number | undefined): void {
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
          this.keepLastId(line, stream, Math.max(this.lastIdOf.get(stream) ?? -1, told));
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
        // Only native lines mark the event that carries a response (`"response": true`); a
        // binding's own answer (a task's result) is one, so its calls are never dropped ones.
        if (this.native && !this.responded && !this.gaveUp && this.lastAnyId !== undefined)
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
        this.shared.counts.reconnects++;
        break;
      }
      case 'EVENT':
        this.lastAnyId = o.id;
        if (o.stream !== undefined) this.keepLastId(line, o.stream, o.id);
        this.openStreamIfNone(line);
        break;
      case 'KEEPALIVE': {
        const seam = (o as Observation & TaskNote).seam;
        if (seam !== undefined && !this.seamNoted) {
          this.seamNoted = true;
          this.shared.notes.push(`line ${line}: ${seamNote(seam)}`);
        }
        this.openStreamIfNone(line);
        break;
      }
      case 'DATA':
        // The note is about the native format's change in 0.2; a binding's DATA is its own.
        if (this.native && this.shared.notes.length === 0)
          this.shared.notes.push(`line ${line}: ${IDLESS_NOTE}`);
        this.openStreamIfNone(line);
        break;
      default:
        this.openStreamIfNone(line);
    }
    this.observe(o, line);
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

  /** The proof budget ran out before this line: the unproven or delayed episode has failed. */
  private checkBudget(line: number, t: number): void {
    const cur = this.current;
    if (this.shared.budget === undefined || !cur || cur.decided || cur.startT === undefined) return;
    if (!isBudgeted(this.snap) || t - cur.startT <= this.shared.budget) return;
    cur.budgetLine = line;
    this.observe(PROOF_TIMEOUT, line);
  }

  /** A line that needs a stream, before any stream was opened: the stream is taken as open. */
  private openStreamIfNone(line: number): void {
    if (this.snap.value === 'connecting') this.observe(IMPLICIT_OPEN, line);
  }

  /** Keeps `id` as the last one of `stream`: a name beyond the bound is bad input. */
  private keepLastId(line: number, stream: string, id: number): void {
    if (this.lastIdOf.size >= MAX_STREAM_NAMES && !this.lastIdOf.has(stream)) {
      throw new TraceInputError(
        line,
        `more than ${MAX_STREAM_NAMES} distinct stream names since the last open: check keeps the last id of each (to find a cursor ahead), and refuses more rather than grow without bound; split the trace`,
      );
    }
    this.lastIdOf.set(stream, id);
  }

  private checkCursor(line: number, cursor: number | null, stream: string | undefined): void {
    if (cursor === null) return;
    const last = stream === undefined ? this.lastAnyId : this.lastIdOf.get(stream);
    if (last === undefined || cursor <= last) return;
    const ahead: CursorAheadReport = { line, cursor, lastReceived: last };
    if (stream !== undefined) ahead.stream = stream;
    this.shared.counts.cursorAhead++;
    this.emit({ kind: 'ahead', value: ahead });
  }

  /** Steps the machine and reads what it decided, if anything. */
  private observe(o: Observation, line: number): void {
    const prev = this.snap;
    const next = this.shared.engine.step(prev, o);
    this.snap = next;
    const reason = next.context.reason;
    if (reason === null || reason === prev.context.reason) return; // no decision
    if (o.type === 'EVENT' && ACCEPTED_STREAM_STATES.includes(prev.value)) {
      const b: BreakReport = {
        line,
        expected: (prev.context.cursor ?? -1) + 1,
        got: o.id,
        reason: phraseOf(this.shared.binding, reason.code, reason.text),
      };
      if (o.stream !== undefined) b.stream = o.stream;
      this.shared.counts.breaks++;
      this.emit({ kind: 'break', value: b });
      return;
    }
    const cur = this.current;
    const outcome = next.context.outcome;
    if (!cur || cur.decided || outcome === null) return;
    // What the receiver said, in the binding's words, when the binding noted it on the answer.
    const said = (o as Observation & TaskNote).said;
    const text = said ?? phraseOf(this.shared.binding, reason.code, reason.text);
    const d: Decided = { outcome, code: reason.code, text, line };
    if (outcome === 'delayed') cur.delayed = d;
    else cur.decided = d;
  }

  private emit(f: Finding): void {
    if (this.current) this.held.push(f);
    else this.deliver(f);
  }

  private deliver(f: Finding): void {
    if (f.kind === 'break') this.shared.sink.break?.(f.value);
    else this.shared.sink.cursorAhead?.(f.value);
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
      text += ` (the proof budget of ${this.shared.budget} ms from line ${cur.startLine} ran out by line ${cur.budgetLine})`;
    } else if (settles) {
      text += ` (still unproven when the judgement window closed at line ${line}: ${by})`;
    } else if (d.outcome === 'delayed') {
      text += ` (no event before the judgement window closed at line ${line}: ${by})`;
    }
    const n = cur.polls.length;
    const lastLine = cur.polls[n - 1]!.line;
    const tasks = this.shared.binding.name === 'mcp-tasks';
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
    this.shared.counts.expected[d.outcome]++;
    this.shared.counts.verdicts[verdict]++;
    this.shared.sink.reconnect?.(r);
  }

  /** The trace ended (`line` its last line): closes the judgement window and the call. */
  finish(line: number): void {
    this.closeWindow(line, 'the end of the trace');
    this.closeCall();
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
