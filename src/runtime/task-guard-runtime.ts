/**
 * The decisions of `taskStreamGuard` (./task-stream-guard.ts), one method each: a call, each
 * wire fact, a break. Every wire fact becomes one trace line of the `mcp-tasks` vocabulary, the
 * binding's translator turns it into the machine's observations, and the shared decision core
 * (./decision-core.ts, the SSE guard's too) steps the machine, reports its decisions, keeps the
 * clock and runs the proof budget; this adapter adds the task wire's mapping (`after`, `seq`,
 * `events_gone`, the task's words in its errors) and the runtime policy (bounds, refusing a
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
import { ACCEPTING_STATES } from '../../model/client-machine.js';
import type { Observation } from '../../model/observations.js';
import type { Outcome, Reason } from '../../model/outcomes.js';
import type { StreamResumptionError } from '../reference.js';
import { DecisionCore, type Escalation } from './decision-core.js';
import { boundedOption } from './guard-options.js';
import { stateOf } from './guard-track.js';
import type { TaskEvent } from './task-event-log.js';
import {
  TaskGuardCapacityError,
  TaskStreamLimitError,
  TaskStreamResumptionError,
  afterText,
} from './task-stream-error.js';
import type { TaskStreamItem, TaskStreamParams } from './task-stream-fetch.js';
import { factsOf, goneOf, type Track } from './task-guard-track.js';
import type { TaskStreamGuardOptions, TaskTraceLine } from './task-guard-types.js';

const bounded = (name: string, value: number | undefined, fallback: number, min: number) =>
  boundedOption('taskStreamGuard', name, value, fallback, min);

/**
 * What one wire fact came to: an escalation, or whether it was an event the machine accepted
 * (`accepted`) or a duplicate the binding dropped (`dropped`).
 */
export type Recorded =
  { error: StreamResumptionError } | { error: null; accepted: boolean; dropped: boolean };

/** The next item of an answer, the failure the budget ran out with, or the idle bound. */
type Next = IteratorResult<TaskStreamItem> | { ranOut: StreamResumptionError } | 'idle';

/** The state and decisions of one `taskStreamGuard`: the task adapter on the decision core. */
export class TaskGuardRuntime extends DecisionCore<Track, never> {
  readonly idleTimeoutMs: number;
  private readonly maxTasks: number;
  private readonly binding: Binding;
  readonly tracks = new Map<string, Track>();

  /** `rules`: the binding's choices where SEP-2694 leaves one (default: SEP-2694's own). */
  constructor(
    private readonly options: TaskStreamGuardOptions,
    rules: TasksRules = SEP_2694_RULES,
  ) {
    const onTrace = options.onTrace;
    super({
      machine: options.machine,
      proofTimeoutMs: bounded('proofTimeoutMs', options.proofTimeoutMs, 10_000, 1),
      enforce: true,
      trace: onTrace ? (line, track) => onTrace(line as TaskTraceLine, track.taskId) : undefined,
      onFailure: options.onFailure,
    });
    this.idleTimeoutMs = bounded('idleTimeoutMs', options.idleTimeoutMs, 0, 0);
    this.maxTasks = bounded('maxTasks', options.maxTasks, 10_000, 1);
    this.binding = tasksBinding(rules);
  }

  /** The task's track, made on its first call (bounded by `maxTasks`). */
  trackOf(taskId: string): Track {
    const known = this.tracks.get(taskId);
    if (known) return known;
    if (this.tracks.size >= this.maxTasks) throw new TaskGuardCapacityError(this.maxTasks);
    const machine = this.machineTrack();
    const track: Track = {
      taskId,
      machine,
      get snapshot() {
        return machine.snapshot;
      },
      translator: this.binding.translator!(),
      lastSeq: undefined,
      failure: null,
      gone: null,
      // Every decision the task guard reports is about a resume: a call's RECONNECT (its
      // first call opens, and an open is judged by nothing), so its decision lines are
      // always written.
      reconnected: true,
      busy: false,
      episodeT: 0,
      episodeAfter: null,
      episodeCursor: null,
    };
    this.tracks.set(taskId, track);
    this.options.onTrace?.(
      { type: 'binding', name: 'mcp-tasks', proofBudget: this.proofTimeoutMs },
      taskId,
    );
    return track;
  }

  /** The task guard's decision report: the task, and the `after` of the episode's resume. */
  protected reportDecision(track: Track, outcome: Outcome, reason: Reason | null): void {
    this.options.onDecision?.({ taskId: track.taskId, outcome, reason, after: track.episodeAfter });
  }

  /**
   * The task guard's error shaper, in the task's words: what the receiver said, or the
   * machine's reason reworded, with the task and the `after` of the episode's resume.
   */
  protected shapeFailure(track: Track, o: Observation, e: Escalation): StreamResumptionError {
    return new TaskStreamResumptionError(
      track.taskId,
      track.episodeAfter,
      (o as Observation & TaskNote).said ?? taskPhrase(e.code, e.text),
      e.code,
      e.outcome,
    );
  }

  protected keepFailure(track: Track, error: StreamResumptionError): StreamResumptionError {
    track.failure ??= error;
    return track.failure;
  }

  /**
   * Records one wire fact and feeds the machine what the binding makes of it. Returns the
   * error of an escalation, and whether the fact was an event the machine accepted.
   */
  record(track: Track, fact: WireFact): Recorded {
    const t = this.now();
    const late = this.outOfBudget(track, t);
    if (late) return { error: late };
    let observations: Observation[];
    try {
      observations = track.translator.translate(fact);
    } catch (e) {
      if (!(e instanceof WireFactError)) throw e;
      // A malformed message is not passed on: the guard gives the stream up (a break).
      const error = this.disconnected(track, { malformed: e.message }, t);
      throw (
        error ??
        new Error(
          `taskStreamGuard: task ${JSON.stringify(track.taskId)}: malformed message (${e.message}); stream given up`,
        )
      );
    }
    this.emit(track, { ...fact } as TaskTraceLine, t);
    for (const o of observations) {
      const error = this.decide(track, o);
      if (error) {
        if (o.type === 'RESPONSE' && o.floor !== undefined) track.gone = goneOf(fact);
        return { error };
      }
    }
    // (A fact's observations end in its own, never none: only an event's end in EVENT, the
    // event the machine took, or KEEPALIVE, a duplicate the binding dropped; a result's and an
    // error's end in END or RESPONSE.)
    const last = observations[observations.length - 1]!;
    const accepted = last.type === 'EVENT' && ACCEPTING_STATES.includes(stateOf(track.snapshot));
    return { error: null, accepted, dropped: last.type === 'KEEPALIVE' };
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
    // A call from the episode's cursor is a poll of it. (A call finds the track pending only
    // between polls: every answer ends with a step out of the other pending states.)
    const poll = track.episodeCursor === cursor;
    const keepsBudget = poll && this.keepsBudget(track);
    // A poll past the budget is refused before it is judged; any other call closes the
    // judgement window of the one before (still unproven, it failed).
    const e = poll ? this.outOfBudget(track, t) : this.closeWindow(track);
    if (e) return e;
    // (A task's first call, an OPEN, starts no episode: it has no cursor, and the fields below
    // keep the values a new track has; the episode begins with the first resume.)
    if (!keepsBudget) track.episodeT = t;
    track.episodeAfter = after;
    track.episodeCursor = cursor;
    const resume = reconnect !== undefined;
    this.emit(track, { ...fact } as TaskTraceLine, t);
    if (resume && stateOf(track.snapshot) === 'connecting') {
      // A first call with `after`: a cursor the guard never saw (kept by an earlier process).
      // The task's stream is taken as open, as the oracle takes it, so the machine judges the
      // resume; left unopened, the machine ignored the call and every event after it, and the
      // guard handed on nothing and raised nothing.
      track.machine.step({ type: 'OPEN', status: 200, stream: track.taskId });
    }
    for (const o of observations) {
      const e = this.decide(track, o);
      if (e) return e;
    }
    if (resume) this.armBudget(track);
    return null;
  }

  /** The next item, or the failure the episode's budget ran out with, or `idle`. */
  private nextOf(track: Track, it: AsyncIterator<TaskStreamItem>): Promise<Next> {
    return new Promise<Next>((resolve, reject) => {
      track.giveUp = (ranOut) => resolve({ ranOut });
      const idle =
        this.idleTimeoutMs > 0 ? setTimeout(() => resolve('idle'), this.idleTimeoutMs) : undefined;
      it.next().then(
        (r) => {
          clearTimeout(idle);
          resolve(r);
        },
        (e: unknown) => {
          clearTimeout(idle);
          reject(e instanceof Error ? e : new Error(String(e)));
        },
      );
    }).finally(() => {
      // (Releases the answer it would end: a budget that runs out between reads ends nothing.)
      track.giveUp = undefined;
    });
  }

  /** The stream broke (a network error, an end without result, the idle bound: `idle`). */
  private broke(track: Track, idle = false): StreamResumptionError | null {
    if (idle) {
      this.emit(track, { type: 'idle-timeout' });
      const e = this.decide(track, { type: 'IDLE_TIMEOUT' });
      if (e) return e;
    }
    // A native line: the binding keeps it as it is (rule 1 before any answer to a resume).
    return this.disconnected(track);
  }

  /** Whether the event `fact` of `track` is handed on: when the machine accepted it. */
  protected handsOn(track: Track, fact: WireFact, r: Extract<Recorded, { error: null }>): boolean {
    return r.accepted;
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
          const failed = this.broke(track);
          if (failed) throw failed;
          if (err instanceof TaskStreamLimitError) throw err;
          return;
        }
        if (next === 'idle') {
          throw (
            this.broke(track, true) ??
            new Error(`taskStreamGuard: no message for ${this.idleTimeoutMs} ms (idleTimeoutMs)`)
          );
        }
        if ('ranOut' in next) throw next.ranOut;
        if (next.done) {
          // The answer ended without its result: a break. Call again with the cursor.
          ended = true;
          const error = this.broke(track);
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
        this.disconnected(track);
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
    // The gap it told is accepted once: a later failure is recovered from only by its own.
    track.gone = null;
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
