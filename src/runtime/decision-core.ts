/**
 * The one decision core both guards run on: the SSE guard (guard-core.ts) and the task guard
 * (task-guard-runtime.ts) are adapters that turn their wire facts into the client machine's
 * observations and hand each one here. The core steps the machine (machine-track.ts, with its
 * fast path for the cursor's successor), turns a step into decisions (a decision line and
 * `onDecision` for a judged reconnect, a `delayed` line when an unproven resume is ended, the
 * failure on an escalation), keeps the clock every trace line is timed by, and runs the proof
 * budget of an episode (its timer, its check on each fact, what happens when it runs out).
 *
 * What stays with an adapter is what its wire says: how a decision is reported (a stream's last
 * id, or a task's `after`), the error a failure is raised with, in the wire's words (the
 * adapter's error shaper, {@link DecisionCore.shapeFailure}), and where the failure is kept.
 * properties/runtime/decision-core.test.ts holds that both guards decide through this class
 * and override none of it.
 */
import { clientMachine, PENDING_STATES, type ClientMachine } from '../../model/client-machine.js';
import type { Observation } from '../../model/observations.js';
import type { Outcome, Reason, ReasonCode } from '../../model/outcomes.js';
import { episodeGoesOn, isBudgeted } from '../../model/run.js';
import type { StreamResumptionError } from '../reference.js';
import { engineFor, type Engine, type MachineState } from '../trace/engine.js';
import { isPending, stateOf } from './guard-track.js';
import { MachineTrack } from './machine-track.js';

/** What the core keeps of one stream (an SSE stream and its resumptions, or one task). */
export interface CoreTrack {
  /** The stream's machine; `snapshot` reads its state. */
  readonly machine: MachineTrack;
  readonly snapshot: MachineState;
  /** A reconnect was made on this track (decision lines follow reconnects only). */
  reconnected: boolean;
  /** `t` of the current episode's first reconnect. */
  episodeT: number;
  /** The proof budget's timer of the current episode. */
  budget?: NodeJS.Timeout;
  /** Ends the stream being read with the error the budget ran out with (unset: none is read). */
  giveUp?: (e: StreamResumptionError) => void;
}

/** One trace line as the core hands it to the adapter's sink, with its time `t`. */
export type CoreTraceLine = Record<string, unknown> & { t: number };

/** What an escalation came to, before the adapter words it: its reason and its outcome. */
export interface Escalation {
  code: ReasonCode;
  text: string;
  outcome: Extract<Outcome, 'resumption-failed' | 'session-lost'>;
}

/** What the core needs of its adapter at construction. */
export interface CoreSettings<T> {
  /** The machine to decide with (tests pass wrong ones). Default the client machine. */
  machine: ClientMachine | undefined;
  /** The proof budget of an episode (ms), from its first reconnect. */
  proofTimeoutMs: number;
  /** `false`: observe only (decisions reported, nothing failed). */
  enforce: boolean;
  /** Receives every trace line of a track (`undefined`: no trace, and no clock read for it). */
  trace: ((line: CoreTraceLine, track: T) => void) | undefined;
  /** Called with every escalation. */
  onFailure: ((error: StreamResumptionError) => void) | undefined;
}

/**
 * The machine, the clock, the trace sink, a step turned into decisions, and the proof budget.
 * `N` is what an adapter passes along with an observation to word its report and its error
 * (the SSE guard: the reason of a failure it names itself; the task guard: the call's `after`).
 */
export abstract class DecisionCore<T extends CoreTrack, N> {
  // The machine runs compiled, as the trace checker runs it (xstate's own transition() costs
  // about 0.2 ms a step, more than the network for an event); both take the same steps.
  readonly engine: Engine;
  readonly enforce: boolean;
  readonly proofTimeoutMs: number;
  private readonly sink: CoreSettings<T>['trace'];
  private readonly failureListener: CoreSettings<T>['onFailure'];
  private readonly t0 = Date.now();
  /** The time of the latest line: a decision carries the time of the line that led to it. */
  private lastT = 0;

  constructor(settings: CoreSettings<T>) {
    this.engine = engineFor(settings.machine ?? clientMachine);
    this.enforce = settings.enforce;
    this.proofTimeoutMs = settings.proofTimeoutMs;
    this.sink = settings.trace;
    this.failureListener = settings.onFailure;
  }

  /** Reports a decision about a reconnect (its decision line is written already). */
  protected abstract reportDecision(
    track: T,
    outcome: Outcome,
    reason: Reason | null,
    note: N | undefined,
  ): void;

  /** The error shaper: the failure an escalation is raised with, in the wire's words. */
  protected abstract shapeFailure(
    track: T,
    o: Observation,
    escalation: Escalation,
    note: N | undefined,
  ): StreamResumptionError;

  /** Keeps a failure on its track; returns the error to raise (a track's first one). */
  protected abstract keepFailure(track: T, error: StreamResumptionError): StreamResumptionError;

  /** Whether trace lines are written (and the clock read for them). */
  get traced(): boolean {
    return this.sink !== undefined;
  }

  /** A new stream's machine. */
  machineTrack(): MachineTrack {
    return new MachineTrack(this.engine);
  }

  /** The time (ms since the guard was made) of a new line, kept as the latest line's time. */
  now(): number {
    return (this.lastT = Date.now() - this.t0);
  }

  /** Writes one trace line of the track, at `t` (default: now; a decision: the latest line's). */
  emit(track: T, line: Record<string, unknown>, t?: number): void {
    if (!this.sink) return;
    const at = t ?? (line['type'] === 'decision' ? this.lastT : this.now());
    this.sink({ ...line, t: at }, track);
  }

  /**
   * Feeds one observation to the track's machine; reports decisions; returns the error to
   * raise when the machine escalated (only when enforcing). An event the machine's last step
   * showed to be a pure cursor step decides nothing (machine-track.ts).
   */
  decide(track: T, o: Observation, note?: N): StreamResumptionError | null {
    if (o.type === 'EVENT' && track.machine.successor(o.id, o.stream)) return null;
    const prev = stateOf(track.snapshot);
    const next = track.machine.step(o);
    const state = stateOf(next);
    const ctx = next.context;
    // Out of the budgeted states, the budget's timer has nothing left to end.
    if (!isBudgeted(next)) clearTimeout(track.budget);
    // A decision about a reconnect: taken on the reconnect itself, or while it is judged
    // (pending, or delayed until an event proves it). An escalation inside a stream already
    // accepted is a break of that stream, not a decision about its reconnect.
    const judged = o.type === 'RECONNECT' || PENDING_STATES.includes(prev) || prev === 'delayed';
    if (judged && state !== prev && ctx.outcome !== null) {
      if (this.enforce && track.reconnected) {
        this.emit(track, { type: 'decision', outcome: ctx.outcome });
      }
      this.reportDecision(track, ctx.outcome, ctx.reason, note);
    } else if (state === 'polling' && prev !== 'polling' && this.enforce) {
      // The server (or the receiver) ended an unproven resume: the episode waits for the next.
      this.emit(track, { type: 'decision', outcome: 'delayed' });
    }
    const escalated = (state === 'resumptionFailed' || state === 'sessionLost') && state !== prev;
    if (!escalated) return null;
    const escalation: Escalation = {
      code: ctx.reason?.code ?? 'unproven',
      text: ctx.reason?.text ?? 'continuity cannot be proven',
      outcome: state === 'sessionLost' ? 'session-lost' : 'resumption-failed',
    };
    return this.escalate(track, o, escalation, note);
  }

  /**
   * The machine escalated on `o`: the adapter's error (its shaper) is reported, and kept and
   * returned when enforcing.
   */
  protected escalate(
    track: T,
    o: Observation,
    escalation: Escalation,
    note: N | undefined,
  ): StreamResumptionError | null {
    const error = this.shapeFailure(track, o, escalation, note);
    this.failureListener?.(error);
    return this.enforce ? this.keepFailure(track, error) : null;
  }

  /**
   * A new reconnect closes the judgement window of the one before: still unproven then
   * (pending), it has failed (`PROOF_TIMEOUT`), and that failure is reported like any other.
   */
  closeWindow(track: T, note?: N): StreamResumptionError | null {
    return isPending(track.snapshot) ? this.decide(track, { type: 'PROOF_TIMEOUT' }, note) : null;
  }

  /**
   * The current episode's budget has run out at `t`. (Only a reconnect makes the machine
   * budgeted: a first stream is never judged against a budget.)
   */
  overBudget(track: T, t: number): boolean {
    return isBudgeted(track.snapshot) && t - track.episodeT > this.proofTimeoutMs;
  }

  /** The failure of an episode whose budget ran out at `t` (checked before a fact is judged). */
  outOfBudget(track: T, t: number): StreamResumptionError | null {
    return this.overBudget(track, t) ? this.budgetRunsOut(track) : null;
  }

  /**
   * What an adapter does first when the budget runs out, if anything (the SSE guard feeds the
   * answer it holds): `undefined` to go on, else what {@link budgetRunsOut} returns.
   */
  protected beforeRunOut?(track: T): StreamResumptionError | null | undefined;

  /**
   * The episode's budget ran out (called on a budgeted track only: `overBudget`, or its timer,
   * which `decide` clears as soon as the machine leaves the budgeted states). Between polls,
   * and on a delayed stream (rule 7.1), the machine's timer fires (`PROOF_TIMEOUT`); a resume
   * still pending is given up (a disconnect). A stream being read is then given up with the
   * error (`giveUp`).
   */
  budgetRunsOut(track: T): StreamResumptionError | null {
    clearTimeout(track.budget);
    this.now();
    const first = this.beforeRunOut?.(track);
    if (first !== undefined) return first;
    const state = stateOf(track.snapshot);
    let e: StreamResumptionError | null;
    if (state === 'polling' || state === 'delayed') {
      e = this.decide(track, { type: 'PROOF_TIMEOUT' });
    } else {
      e = this.disconnected(track);
    }
    if (e) track.giveUp?.(e);
    return e;
  }

  /**
   * The stream was given up (a break, a cut, a pending resume whose budget ran out): its
   * `disconnect` line, with `extra` fields if any, at `t` (default now), and the machine's
   * DISCONNECT.
   */
  disconnected(
    track: T,
    extra?: Record<string, unknown>,
    t?: number,
  ): StreamResumptionError | null {
    this.emit(track, { type: 'disconnect', ...extra }, t);
    return this.decide(track, { type: 'DISCONNECT' });
  }

  /**
   * Whether a reconnect now goes on with the episode's budget (a poll, or a reconnect of a
   * delayed stream with no event since), asked before the reconnect is recorded: otherwise its
   * episode, and its budget, start anew.
   */
  protected keepsBudget(track: T): boolean {
    return episodeGoesOn(track.snapshot);
  }

  /** Starts the episode's budget timer: it runs out at `episodeT + proofTimeoutMs`. */
  armBudget(track: T): void {
    clearTimeout(track.budget);
    const left = Math.max(0, track.episodeT + this.proofTimeoutMs - this.now() + 1);
    // (Every step that leaves the budgeted states clears the timer: `decide`.)
    track.budget = setTimeout(() => this.budgetRunsOut(track), left);
    track.budget.unref?.();
  }
}
