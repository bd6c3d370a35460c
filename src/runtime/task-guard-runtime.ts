/**
 * The decisions of `taskStreamGuard` (./task-stream-guard.ts), one method each: a call, each
 * wire fact, a break, the proof budget. Every wire fact becomes one trace line of the
 * `mcp-tasks` vocabulary, the binding's translator turns it into the machine's observations,
 * and the machine decides; this class adds only the runtime policy (a clock, bounds, refusing a
 * failed task until it is forgotten or recovered).
 */
import {
  SEP_2694_RULES,
  taskPhrase,
  tasksBinding,
  WireFactError,
  type Binding,
  type TaskNote,
  type TasksRules,
  type WireFact,
} from '../../model/bindings/index.js';
import {
  ACCEPTING_STATES,
  clientMachine,
  PENDING_STATES,
  type ClientStateName,
} from '../../model/client-machine.js';
import type { Observation } from '../../model/observations.js';
import { episodeGoesOn, isBudgeted } from '../../model/run.js';
import type { StreamResumptionError } from '../reference.js';
import { engineFor, type Engine, type MachineState } from '../trace/engine.js';
import { boundedOption } from './guard-options.js';
import { MachineTrack } from './machine-track.js';
import type { TaskEvent } from './task-event-log.js';
import {
  TaskGuardCapacityError,
  TaskStreamLimitError,
  TaskStreamResumptionError,
  afterText,
} from './task-stream-error.js';
import type { TaskStreamItem, TaskStreamParams } from './task-stream-fetch.js';
import { factsOf, goneOf, type Track } from './task-guard-track.js';
import type {
  TaskGuardMutantName,
  TaskStreamGuardOptions,
  TaskTraceLine,
} from './task-guard-types.js';

const bounded = (name: string, value: number | undefined, fallback: number, min: number) =>
  boundedOption('taskStreamGuard', name, value, fallback, min);

const stateOf = (s: MachineState) => s.value as ClientStateName;
const isPending = (s: MachineState) => PENDING_STATES.includes(stateOf(s));

/** The rules of a guard mutant that flips one of the binding's choices, else SEP-2694's. */
function rulesOf(mutant: TaskGuardMutantName | undefined): TasksRules {
  if (mutant === 'gone-410-is-session-lost') return { ...SEP_2694_RULES, classifyOn: 'status' };
  if (mutant === 'accepts-missing-after') return { ...SEP_2694_RULES, missingAfter: 'open' };
  return SEP_2694_RULES;
}

/** What one wire fact came to: an escalation, an event handed on, a duplicate dropped. */
interface Recorded {
  error: StreamResumptionError | null;
  accepted: boolean;
  dropped: boolean;
}

/** The next item of an answer, or the budget or the idle bound running out. */
type Next = IteratorResult<TaskStreamItem> | 'budget' | 'idle';

/** The state and decisions of one `taskStreamGuard`. */
export class TaskGuardRuntime {
  readonly proofTimeoutMs: number;
  readonly idleTimeoutMs: number;
  private readonly maxTasks: number;
  private readonly binding: Binding;
  private readonly engine: Engine;
  private readonly t0 = Date.now();
  readonly tracks = new Map<string, Track>();
  private lastT = 0;

  constructor(
    private readonly options: TaskStreamGuardOptions,
    readonly mutant: TaskGuardMutantName | undefined,
  ) {
    this.proofTimeoutMs = bounded('proofTimeoutMs', options.proofTimeoutMs, 10_000, 1);
    this.idleTimeoutMs = bounded('idleTimeoutMs', options.idleTimeoutMs, 0, 0);
    this.maxTasks = bounded('maxTasks', options.maxTasks, 10_000, 1);
    this.binding = tasksBinding(rulesOf(mutant));
    this.engine = engineFor(options.machine ?? clientMachine);
  }

  private now(): number {
    return (this.lastT = Date.now() - this.t0);
  }

  private emit(track: Track, line: TaskTraceLine, t?: number): void {
    this.options.onTrace?.(
      { ...line, t: t ?? (line.type === 'decision' ? this.lastT : this.now()) },
      track.taskId,
    );
  }

  /** The task's track, made on its first call (bounded by `maxTasks`). */
  trackOf(taskId: string): Track {
    const known = this.tracks.get(taskId);
    if (known) return known;
    if (this.tracks.size >= this.maxTasks) throw new TaskGuardCapacityError(this.maxTasks);
    const machine = new MachineTrack(this.engine);
    const track: Track = {
      taskId,
      machine,
      get snapshot() {
        return machine.snapshot;
      },
      set snapshot(state) {
        machine.snapshot = state;
      },
      translator: this.binding.translator!(),
      lastSeq: undefined,
      failure: null,
      gone: null,
      reconnected: false,
      busy: false,
      episodeT: 0,
      episodeAfter: null,
      episodeCursor: null,
      ignoring: false,
    };
    this.tracks.set(taskId, track);
    this.options.onTrace?.(
      { type: 'binding', name: 'mcp-tasks', proofBudget: this.proofTimeoutMs },
      taskId,
    );
    return track;
  }

  /** Feeds one observation; reports decisions; returns the error of an escalation. */
  decide(track: Track, o: Observation, after: number | null): StreamResumptionError | null {
    // The event the machine's last step showed to be a pure cursor step: it decides nothing
    // (machine-track.ts; the budget was cleared by the step that left the budgeted states).
    if (o.type === 'EVENT' && track.machine.successor(o.id, o.stream)) return null;
    const prev = stateOf(track.snapshot);
    const next = track.machine.step(o);
    const state = stateOf(next);
    const ctx = next.context;
    if (!isBudgeted(next)) clearTimeout(track.budget);
    const judged = o.type === 'RECONNECT' || PENDING_STATES.includes(prev) || prev === 'delayed';
    if (judged && state !== prev && ctx.outcome !== null) {
      if (track.reconnected) this.emit(track, { type: 'decision', outcome: ctx.outcome });
      this.options.onDecision?.({
        taskId: track.taskId,
        outcome: ctx.outcome,
        reason: ctx.reason,
        after,
      });
    } else if (state === 'polling' && prev !== 'polling') {
      // The receiver closed an unproven resume: the episode waits for the next call.
      this.emit(track, { type: 'decision', outcome: 'delayed' });
    }
    const escalated = (state === 'resumptionFailed' || state === 'sessionLost') && state !== prev;
    if (!escalated) return null;
    if (this.mutant === 'accepts-skip' && ctx.reason?.code === 'skip') {
      track.ignoring = true;
      return null;
    }
    const code = ctx.reason?.code ?? 'unproven';
    // In the task's words: what the receiver said, or the machine's reason reworded.
    const why =
      (o as Observation & TaskNote).said ??
      taskPhrase(code, ctx.reason?.text ?? 'continuity cannot be proven');
    const error = new TaskStreamResumptionError(
      track.taskId,
      after,
      why,
      code,
      state === 'sessionLost' ? 'session-lost' : 'resumption-failed',
    );
    this.options.onFailure?.(error);
    track.failure ??= error;
    return track.failure;
  }

  private overBudget(track: Track, t: number): boolean {
    return (
      track.reconnected && isBudgeted(track.snapshot) && t - track.episodeT > this.proofTimeoutMs
    );
  }

  /**
   * The episode's budget ran out: between polls or while delayed the machine's timer fires; a
   * resume still being answered is given up (a break), and the machine says why it failed.
   */
  budgetRunsOut(track: Track): StreamResumptionError | null {
    clearTimeout(track.budget);
    this.now();
    const state = stateOf(track.snapshot);
    if (state === 'polling' || state === 'delayed') {
      return this.decide(track, { type: 'PROOF_TIMEOUT' }, track.episodeAfter);
    }
    if (!isPending(track.snapshot)) return null;
    this.emit(track, { type: 'disconnect' });
    return this.decide(track, { type: 'DISCONNECT' }, track.episodeAfter);
  }

  private armBudget(track: Track): void {
    clearTimeout(track.budget);
    const left = Math.max(0, track.episodeT + this.proofTimeoutMs - this.now() + 1);
    track.budget = setTimeout(() => {
      if (!isBudgeted(track.snapshot)) return;
      if (track.onBudget) track.onBudget();
      else this.budgetRunsOut(track);
    }, left);
    track.budget.unref?.();
  }

  /**
   * Records one wire fact and feeds the machine what the binding makes of it. Returns the
   * error of an escalation, and whether the fact was an event the machine accepted.
   */
  record(track: Track, fact: WireFact): Recorded {
    const t = this.now();
    if (this.overBudget(track, t)) {
      const error = this.budgetRunsOut(track);
      if (error) return { error, accepted: false, dropped: false };
    }
    let observations: Observation[];
    try {
      observations = track.translator.translate(fact);
    } catch (e) {
      if (!(e instanceof WireFactError)) throw e;
      // A malformed message is not passed on: the guard gives the stream up (a break).
      this.emit(track, { type: 'disconnect', malformed: e.message }, t);
      const error = this.decide(track, { type: 'DISCONNECT' }, track.episodeAfter);
      throw (
        error ??
        new Error(
          `taskStreamGuard: task ${JSON.stringify(track.taskId)}: malformed message (${e.message}); stream given up`,
        )
      );
    }
    this.emit(track, { ...fact } as TaskTraceLine, t);
    for (const o of observations) {
      const error = this.decide(track, o, track.episodeAfter);
      if (error) {
        if (o.type === 'RESPONSE' && o.floor !== undefined) track.gone = goneOf(fact);
        return { error, accepted: false, dropped: false };
      }
    }
    const last = observations[observations.length - 1];
    const event = fact['type'] === 'tasks/event';
    const accepted =
      event &&
      last?.type === 'EVENT' &&
      last.id === fact['seq'] &&
      ACCEPTING_STATES.includes(stateOf(track.snapshot));
    const dropped = event && last?.type === 'KEEPALIVE';
    return { error: null, accepted, dropped };
  }

  /** The call itself: a resume (RECONNECT), a poll of the episode, or a fresh stream (OPEN). */
  call(track: Track, after: number | null): StreamResumptionError | null {
    const t = this.now();
    const fact: WireFact =
      after === null
        ? { type: 'tasks/stream', taskId: track.taskId }
        : { type: 'tasks/stream', taskId: track.taskId, after };
    // (The binding's reading of the call touches no machine state: it only says from which
    // cursor the call resumes, which tells a poll of the episode from a new one.)
    const observations = track.translator.translate(fact);
    const reconnect = observations.find((o) => o.type === 'RECONNECT');
    const cursor = reconnect?.type === 'RECONNECT' ? reconnect.cursor : null;
    const sameCursor = cursor !== null && track.episodeCursor === cursor;
    const polling = stateOf(track.snapshot) === 'polling' && sameCursor;
    const keepsBudget = episodeGoesOn(track.snapshot) && sameCursor;
    if (polling && this.overBudget(track, t)) {
      const e = this.budgetRunsOut(track);
      if (e) return e;
    }
    if (!polling && isPending(track.snapshot)) {
      // A new call closes the judgement window of the one before: still unproven, it failed.
      const e = this.decide(track, { type: 'PROOF_TIMEOUT' }, track.episodeAfter);
      if (e) return e;
    }
    const resume = reconnect !== undefined;
    if (resume) {
      track.reconnected = true;
      if (!keepsBudget || this.mutant === 'budget-per-poll') track.episodeT = t;
      track.episodeAfter = after;
      track.episodeCursor = cursor;
    }
    this.emit(track, { ...fact } as TaskTraceLine, t);
    if (resume && stateOf(track.snapshot) === 'connecting') {
      // A first call with `after`: a cursor the guard never saw (kept by an earlier process).
      // The task's stream is taken as open, as the oracle takes it, so the machine judges the
      // resume; left unopened, the machine ignored the call and every event after it, and the
      // guard handed on nothing and raised nothing.
      track.machine.step({ type: 'OPEN', status: 200, stream: track.taskId });
    }
    for (const o of observations) {
      const e = this.decide(track, o, after);
      if (e) return e;
    }
    if (resume) this.armBudget(track);
    return null;
  }

  /** The next item, or `budget` when the episode's budget runs out, or `idle`. */
  private nextOf(track: Track, it: AsyncIterator<TaskStreamItem>): Promise<Next> {
    return new Promise<Next>((resolve, reject) => {
      track.onBudget = () => resolve('budget');
      const idle =
        this.idleTimeoutMs > 0 ? setTimeout(() => resolve('idle'), this.idleTimeoutMs) : null;
      it.next().then(
        (r) => {
          if (idle) clearTimeout(idle);
          resolve(r);
        },
        (e: unknown) => {
          if (idle) clearTimeout(idle);
          reject(e instanceof Error ? e : new Error(String(e)));
        },
      );
    }).finally(() => {
      track.onBudget = undefined;
    });
  }

  /** The stream broke (a network error, an end without result, an idle bound, a budget). */
  private broke(track: Track, line: 'disconnect' | 'idle-timeout'): StreamResumptionError | null {
    if (line === 'idle-timeout') {
      this.emit(track, { type: 'idle-timeout' });
      const e = this.decide(track, { type: 'IDLE_TIMEOUT' }, track.episodeAfter);
      if (e) return e;
    }
    // A native line: the binding keeps it as it is (rule 1 before any answer to a resume).
    this.emit(track, { type: 'disconnect' });
    return this.decide(track, { type: 'DISCONNECT' }, track.episodeAfter);
  }

  /** Whether an event is handed on: accepted by the machine (or let through by a mutant). */
  private handsOn(track: Track, fact: WireFact, r: Recorded): boolean {
    const own = fact['taskId'] === track.taskId;
    const seq = fact['seq'] as number;
    if (this.mutant === 'cursor-follows-duplicates' && r.dropped && own) track.lastSeq = seq;
    const fresh = track.lastSeq === undefined || seq > track.lastSeq;
    return (
      r.accepted ||
      (this.mutant === 'forwards-duplicates' && r.dropped) ||
      (track.ignoring && own && fresh)
    );
  }

  /** See `TaskStreamGuard.follow`. */
  async *follow(
    params: TaskStreamParams,
    answer: AsyncIterable<TaskStreamItem>,
  ): AsyncGenerator<TaskEvent, void, undefined> {
    const track = this.trackOf(params.taskId);
    if (track.failure) throw track.failure;
    if (track.busy) {
      throw new Error(
        `taskStreamGuard: task ${JSON.stringify(params.taskId)} already has a stream in progress`,
      );
    }
    track.busy = true;
    const it = answer[Symbol.asyncIterator]();
    /** The stream ended by itself (its result, an error, a break): not left by the reader. */
    let ended = false;
    try {
      const e = this.call(track, params.after ?? null);
      if (e) throw e;
      for (;;) {
        let next: Next;
        try {
          next = await this.nextOf(track, it);
        } catch (err) {
          // The answer broke: the machine decides; a live stream just ends (call again with
          // the cursor), unless the answer went over a bound (calling again would too).
          ended = true;
          const failed = this.broke(track, 'disconnect');
          if (failed) throw failed;
          if (err instanceof TaskStreamLimitError) throw err;
          return;
        }
        if (next === 'budget') {
          throw this.budgetRunsOut(track) ?? new Error('proof budget ran out');
        }
        if (next === 'idle') {
          throw (
            this.broke(track, 'idle-timeout') ??
            new Error(`taskStreamGuard: no message for ${this.idleTimeoutMs} ms (idleTimeoutMs)`)
          );
        }
        if (next.done) {
          // The answer ended without its result: a break. Call again with the cursor.
          ended = true;
          const error = this.broke(track, 'disconnect');
          if (error) throw error;
          return;
        }
        for (const fact of factsOf(next.value)) {
          const r = this.record(track, fact);
          if (r.error) throw r.error;
          if (this.handsOn(track, fact, r)) {
            track.lastSeq = fact['seq'] as number;
            yield (next.value.message as { params: TaskEvent }).params;
          }
          if (fact['type'] === 'tasks/result') {
            ended = true;
            return;
          }
          if (fact['type'] === 'tasks/error') throw answeredError(track, params, fact);
        }
      }
      // (Every exit from the loop is a return or a throw.)
    } catch (e) {
      ended = true;
      throw e;
    } finally {
      track.busy = false;
      if (!ended && !track.failure && this.tracks.get(track.taskId) === track) {
        // The application stopped reading before the stream ended: it cut the connection.
        this.emit(track, { type: 'disconnect' });
        this.decide(track, { type: 'DISCONNECT' }, track.episodeAfter);
      }
      void it.return?.()?.catch(() => {});
    }
  }

  /**
   * SEP-2694's first recovery after `events_gone`: the gap (up to `earliestSeq - 1`) is
   * accepted, the task's failure cleared, and its cursor set to `earliestSeq - 1`, so the next
   * call resumes there (and is still judged: `earliestSeq` must come first).
   */
  recover(taskId: string): number {
    const track = this.tracks.get(taskId);
    if (!track?.failure || track.gone === null) {
      throw new Error(
        `taskStreamGuard: task ${JSON.stringify(taskId)} has no events_gone to recover from; only a stream failed by events_gone can resume after its gap`,
      );
    }
    track.failure = null;
    track.lastSeq = Math.max(track.lastSeq ?? -1, track.gone - 1);
    track.episodeAfter = null;
    track.episodeCursor = null;
    return track.lastSeq;
  }
}

/** The error an error answer to an opening call ends the stream with, in the task's words. */
function answeredError(track: Track, params: TaskStreamParams, fact: WireFact): Error {
  const err = (fact['error'] ?? {}) as { code?: unknown; message?: unknown };
  const code = err.code === undefined ? '' : ` JSON-RPC error ${String(err.code)}`;
  const message = err.message === undefined ? '' : ` (${String(err.message)})`;
  return new Error(
    `taskStreamGuard: task ${JSON.stringify(track.taskId)}, tasks/stream ${afterText(params.after)}: answered HTTP status ${String(fact['status'])}${code}${message}`,
  );
}
