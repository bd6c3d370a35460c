/**
 * `taskStreamGuard(options)`: the client side of SEP-2694 task event streams, with the same
 * fail-closed behaviour as `continuityGuard` has for SSE. A client hands it each `tasks/stream`
 * call it makes and what came back (`follow(params, answer)`), or lets it make the call over
 * HTTP (`stream(fetch, url, taskId)`); it yields the task events the application may process,
 * and throws {@link StreamResumptionError} when continuity cannot be proven.
 *
 * The guard is a thin adapter: every wire fact (the call, each event, the result, an error, a
 * break, a timer) becomes one trace line of the `mcp-tasks` vocabulary, which the binding's
 * translator (model/bindings/mcp-tasks.ts) turns into the machine's observations; the client
 * machine (model/client-machine.ts) decides. The guard hands an event on only when the machine
 * accepted it, so nothing from after a gap reaches the application, and a duplicate (dropped
 * by the binding) never does. What the guard adds is runtime policy: the proof budget on a
 * clock, an idle bound, a bound on the tasks followed, and refusing every later call for a task
 * whose stream failed until the application forgets it (docs/runtime.md, "Task streams").
 */
import {
  SEP_2694_RULES,
  tasksBinding,
  WireFactError,
  type BindingTranslator,
  type TasksRules,
  type WireFact,
} from '../../model/bindings/index.js';
import {
  ACCEPTING_STATES,
  clientMachine,
  PENDING_STATES,
  type ClientMachine,
  type ClientStateName,
} from '../../model/client-machine.js';
import type { Observation } from '../../model/observations.js';
import type { Outcome, Reason } from '../../model/outcomes.js';
import { episodeGoesOn, isBudgeted } from '../../model/run.js';
import { StreamResumptionError } from '../reference.js';
import { engineFor, type MachineState } from '../trace/engine.js';
import { boundedOption } from './guard-options.js';
import type { TaskEvent } from './task-event-log.js';
import {
  fetchTaskStream,
  type TaskStreamItem,
  type TaskStreamParams,
} from './task-stream-fetch.js';

/** One line of a task-stream trace (format of `check --binding mcp-tasks`), with its time `t`. */
export type TaskTraceLine = { type: string; t?: number } & Record<string, unknown>;

/** A decision the guard took about one resume. */
export interface TaskStreamDecision {
  taskId: string;
  outcome: Outcome;
  reason: Reason | null;
  /** The `after` sent (`null`: none). */
  after: number | null;
}

/** Options of {@link taskStreamGuard}. */
export interface TaskStreamGuardOptions {
  /**
   * The proof budget of an episode (ms), from its first resume: a resume still unproven (no
   * event `after + 1`) when it runs out has failed (rule 7). The polls of one episode (the
   * receiver closes each resumed stream empty; the client calls again with the same `after`)
   * share it, and duplicates do not extend it. Default 10000.
   */
  proofTimeoutMs?: number;
  /**
   * How long (ms) a stream may stay silent (no message at all) before the guard gives it up
   * (an `idle-timeout`, then a break: call again with the cursor). 0 (default): no bound, as a
   * task may run long between events; the proof budget still bounds every resume.
   */
  idleTimeoutMs?: number;
  /** The most tasks followed at once; one more is refused ({@link TaskGuardCapacityError}). Default 10000. */
  maxTasks?: number;
  /** Called with every escalation. */
  onFailure?: (error: StreamResumptionError) => void;
  /** Called with every decision about a resume. */
  onDecision?: (decision: TaskStreamDecision) => void;
  /**
   * Receives the trace, one line at a time, with the task it belongs to. Each task's lines,
   * joined with newlines, are a trace `mcp-resumption check` reads (its first line names the
   * binding and the proof budget).
   */
  onTrace?: (line: TaskTraceLine, taskId: string) => void;
  /** The machine to decide with (tests pass mutants). Default the client machine. */
  machine?: ClientMachine;
}

/** A guard over task event streams: see {@link taskStreamGuard}. */
export interface TaskStreamGuard {
  /**
   * Follows one `tasks/stream` call: `params` as sent, `answer` what came back. Yields the
   * events the application may process, in order, each once; returns when the stream ended
   * (its result, or a break: call again with {@link TaskStreamGuard.cursor}); throws
   * {@link StreamResumptionError} when continuity cannot be proven, and throws it again for
   * every later call for the task until {@link TaskStreamGuard.forget}.
   */
  follow(
    params: TaskStreamParams,
    answer: AsyncIterable<TaskStreamItem>,
  ): AsyncGenerator<TaskEvent, void, undefined>;
  /** Calls `tasks/stream` over HTTP (with `after` = the cursor) and follows it. */
  stream(
    fetchFn: typeof fetch,
    url: string | URL,
    taskId: string,
    init?: { headers?: ConstructorParameters<typeof Headers>[0]; signal?: AbortSignal },
  ): AsyncGenerator<TaskEvent, void, undefined>;
  /** The `seq` of the last event handed on for the task: the `after` of the next call. */
  cursor(taskId: string): number | undefined;
  /** Forgets a task: it finished, or the application accepts starting it again from scratch. */
  forget(taskId: string): void;
}

/** A call for one more task was refused: the guard already follows `maxTasks`. */
export class TaskGuardCapacityError extends Error {
  constructor(readonly maxTasks: number) {
    super(
      `taskStreamGuard: already following maxTasks (${maxTasks}) tasks; forget finished ones first`,
    );
    this.name = 'TaskGuardCapacityError';
  }
}

/** The name of a task guard mutant (./task-guard-mutants.ts). @internal */
export type TaskGuardMutantName =
  | 'accepts-skip'
  | 'forwards-duplicates'
  | 'gone-410-is-session-lost'
  | 'accepts-missing-after'
  | 'budget-per-poll';

interface Track {
  taskId: string;
  snapshot: MachineState;
  translator: BindingTranslator;
  /** The seq of the last event handed on. */
  lastSeq: number | undefined;
  failure: StreamResumptionError | null;
  reconnected: boolean;
  /** A follow is in progress (one stream per task at a time, as SEP-2694 requires). */
  busy: boolean;
  episodeT: number;
  /** The `after` of the current episode: a poll sends it again. */
  episodeAfter: number | null;
  budget?: NodeJS.Timeout;
  /** Wakes the follow in progress when the budget runs out. */
  onBudget?: () => void;
  /** `accepts-skip` mutant: a skip was let through, later events follow it. */
  ignoring: boolean;
}

const bounded = (name: string, value: number | undefined, fallback: number, min: number) =>
  boundedOption('taskStreamGuard', name, value, fallback, min);

const stateOf = (s: MachineState) => s.value as ClientStateName;
const isPending = (s: MachineState) => PENDING_STATES.includes(stateOf(s));

/**
 * The wire facts one received item stands for: an event, the result, an error (with the HTTP
 * status), or nothing (another notification, which proves nothing).
 */
function factsOf(item: TaskStreamItem): WireFact[] {
  const m = item.message as Record<string, unknown> | undefined;
  if (typeof m === 'object' && m !== null && !Array.isArray(m)) {
    if (m['method'] === 'notifications/tasks/event') {
      const p = m['params'] as Record<string, unknown> | undefined;
      return [{ type: 'tasks/event', taskId: p?.['taskId'], seq: p?.['seq'] }];
    }
    if ('method' in m) return [];
    if ('error' in m) return [{ type: 'tasks/error', status: item.status, error: m['error'] }];
    if ('result' in m && item.status === 200) return [{ type: 'tasks/result' }];
  }
  return item.status === 200 ? [] : [{ type: 'tasks/error', status: item.status }];
}

/**
 * A guard for the task event streams a client consumes.
 *
 * @category Runtime
 * @example
 * ```ts
 * import { taskStreamGuard, StreamResumptionError } from 'mcp-resumption/runtime';
 *
 * const guard = taskStreamGuard({ proofTimeoutMs: 5_000 });
 * try {
 *   for (;;) {
 *     for await (const event of guard.stream(fetch, 'http://127.0.0.1:8080/mcp', taskId)) {
 *       apply(event); // each event once, in order, never one from after a gap
 *     }
 *     if (await taskFinished(taskId)) break; // the stream ended: call again with the cursor
 *   }
 * } catch (e) {
 *   if (e instanceof StreamResumptionError) rebuild(taskId); // events were lost: start over
 *   else throw e;
 * }
 * ```
 */
export function taskStreamGuard(options: TaskStreamGuardOptions = {}): TaskStreamGuard {
  return taskGuardWith(options, undefined);
}

/** The guard with one of its mutants put back (tests only), or none. @internal */
export function taskGuardWith(
  options: TaskStreamGuardOptions,
  mutant: TaskGuardMutantName | undefined,
): TaskStreamGuard {
  const proofTimeoutMs = bounded('proofTimeoutMs', options.proofTimeoutMs, 10_000, 1);
  const idleTimeoutMs = bounded('idleTimeoutMs', options.idleTimeoutMs, 0, 0);
  const maxTasks = bounded('maxTasks', options.maxTasks, 10_000, 1);
  const rules: TasksRules =
    mutant === 'gone-410-is-session-lost'
      ? { ...SEP_2694_RULES, classifyOn: 'status' }
      : mutant === 'accepts-missing-after'
        ? { ...SEP_2694_RULES, missingAfter: 'open' }
        : SEP_2694_RULES;
  const binding = tasksBinding(rules);
  const engine = engineFor(options.machine ?? clientMachine);
  const t0 = Date.now();
  const tracks = new Map<string, Track>();
  let lastT = 0;
  const now = () => (lastT = Date.now() - t0);

  const emit = (track: Track, line: TaskTraceLine, t?: number) => {
    options.onTrace?.(
      { ...line, t: t ?? (line.type === 'decision' ? lastT : now()) },
      track.taskId,
    );
  };

  const trackOf = (taskId: string): Track => {
    const known = tracks.get(taskId);
    if (known) return known;
    if (tracks.size >= maxTasks) throw new TaskGuardCapacityError(maxTasks);
    const track: Track = {
      taskId,
      snapshot: engine.initial(),
      translator: binding.translator!(),
      lastSeq: undefined,
      failure: null,
      reconnected: false,
      busy: false,
      episodeT: 0,
      episodeAfter: null,
      ignoring: false,
    };
    tracks.set(taskId, track);
    options.onTrace?.({ type: 'binding', name: 'mcp-tasks', proofBudget: proofTimeoutMs }, taskId);
    return track;
  };

  /** Feeds one observation; reports decisions; returns the error of an escalation. */
  const decide = (track: Track, o: Observation, after: number | null) => {
    const prev = stateOf(track.snapshot);
    track.snapshot = engine.step(track.snapshot, o);
    const state = stateOf(track.snapshot);
    const ctx = track.snapshot.context;
    if (!isBudgeted(track.snapshot)) clearTimeout(track.budget);
    const judged = o.type === 'RECONNECT' || PENDING_STATES.includes(prev) || prev === 'delayed';
    if (judged && state !== prev && ctx.outcome !== null) {
      if (track.reconnected) emit(track, { type: 'decision', outcome: ctx.outcome });
      options.onDecision?.({
        taskId: track.taskId,
        outcome: ctx.outcome,
        reason: ctx.reason,
        after,
      });
    } else if (state === 'polling' && prev !== 'polling') {
      // The receiver closed an unproven resume: the episode waits for the next call.
      emit(track, { type: 'decision', outcome: 'delayed' });
    }
    const escalated = (state === 'resumptionFailed' || state === 'sessionLost') && state !== prev;
    if (!escalated) return null;
    if (mutant === 'accepts-skip' && ctx.reason?.code === 'skip') {
      track.ignoring = true;
      return null;
    }
    const error = new StreamResumptionError(
      ctx.reason?.text ?? 'continuity cannot be proven',
      ctx.reason?.code ?? 'unproven',
      state === 'sessionLost' ? 'session-lost' : 'resumption-failed',
    );
    options.onFailure?.(error);
    track.failure ??= error;
    return track.failure;
  };

  const overBudget = (track: Track, t: number) =>
    track.reconnected && isBudgeted(track.snapshot) && t - track.episodeT > proofTimeoutMs;

  /**
   * The episode's budget ran out: between polls or while delayed the machine's timer fires; a
   * resume still being answered is given up (a break), and the machine says why it failed.
   */
  const budgetRunsOut = (track: Track): StreamResumptionError | null => {
    clearTimeout(track.budget);
    now();
    const state = stateOf(track.snapshot);
    if (state === 'polling' || state === 'delayed') {
      return decide(track, { type: 'PROOF_TIMEOUT' }, track.episodeAfter);
    }
    if (!isPending(track.snapshot)) return null;
    emit(track, { type: 'disconnect' });
    return decide(track, { type: 'DISCONNECT' }, track.episodeAfter);
  };

  const armBudget = (track: Track) => {
    clearTimeout(track.budget);
    const left = Math.max(0, track.episodeT + proofTimeoutMs - now() + 1);
    track.budget = setTimeout(() => {
      if (!isBudgeted(track.snapshot)) return;
      if (track.onBudget) track.onBudget();
      else budgetRunsOut(track);
    }, left);
    track.budget.unref?.();
  };

  /**
   * Records one wire fact and feeds the machine what the binding makes of it. Returns the
   * error of an escalation, and whether the fact was an event the machine accepted.
   */
  const record = (
    track: Track,
    fact: WireFact,
  ): { error: StreamResumptionError | null; accepted: boolean; dropped: boolean } => {
    const t = now();
    if (overBudget(track, t)) {
      const error = budgetRunsOut(track);
      if (error) return { error, accepted: false, dropped: false };
    }
    let observations: Observation[];
    try {
      observations = track.translator.translate(fact);
    } catch (e) {
      if (!(e instanceof WireFactError)) throw e;
      // A malformed message is not passed on: the guard gives the stream up (a break).
      emit(track, { type: 'disconnect', malformed: e.message }, t);
      const error = decide(track, { type: 'DISCONNECT' }, track.episodeAfter);
      throw (
        error ?? new Error(`taskStreamGuard: malformed message (${e.message}); stream given up`)
      );
    }
    emit(track, { ...fact } as TaskTraceLine, t);
    let error: StreamResumptionError | null = null;
    for (const o of observations) {
      error = decide(track, o, track.episodeAfter);
      if (error) return { error, accepted: false, dropped: false };
    }
    const last = observations[observations.length - 1];
    const event = fact['type'] === 'tasks/event';
    const accepted =
      event &&
      last?.type === 'EVENT' &&
      last.id === fact['seq'] &&
      ACCEPTING_STATES.includes(stateOf(track.snapshot));
    const dropped = event && last?.type === 'KEEPALIVE';
    return { error, accepted, dropped };
  };

  /** The call itself: a resume (RECONNECT), a poll of the episode, or a fresh stream (OPEN). */
  const call = (track: Track, after: number | null): StreamResumptionError | null => {
    const t = now();
    const sameCursor = after !== null && track.episodeAfter === after;
    const polling = stateOf(track.snapshot) === 'polling' && sameCursor;
    const keepsBudget = episodeGoesOn(track.snapshot) && sameCursor;
    if (polling && overBudget(track, t)) {
      const e = budgetRunsOut(track);
      if (e) return e;
    }
    if (!polling && isPending(track.snapshot)) {
      // A new call closes the judgement window of the one before: still unproven, it failed.
      const e = decide(track, { type: 'PROOF_TIMEOUT' }, track.episodeAfter);
      if (e) return e;
    }
    const fact: WireFact =
      after === null
        ? { type: 'tasks/stream', taskId: track.taskId }
        : { type: 'tasks/stream', taskId: track.taskId, after };
    const observations = track.translator.translate(fact);
    const resume = observations.some((o) => o.type === 'RECONNECT');
    if (resume) {
      track.reconnected = true;
      if (!keepsBudget || mutant === 'budget-per-poll') track.episodeT = t;
      track.episodeAfter = after;
    }
    emit(track, { ...fact } as TaskTraceLine, t);
    for (const o of observations) {
      const e = decide(track, o, after);
      if (e) return e;
    }
    if (resume) armBudget(track);
    return null;
  };

  /** The next item, or `budget` when the episode's budget runs out, or `idle`. */
  const nextOf = (track: Track, it: AsyncIterator<TaskStreamItem>) =>
    new Promise<IteratorResult<TaskStreamItem> | 'budget' | 'idle'>((resolve, reject) => {
      track.onBudget = () => resolve('budget');
      const idle = idleTimeoutMs > 0 ? setTimeout(() => resolve('idle'), idleTimeoutMs) : null;
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

  /** The stream broke (a network error, an end without result, an idle bound, a budget). */
  const broke = (track: Track, line: 'disconnect' | 'idle-timeout') => {
    if (line === 'idle-timeout') {
      emit(track, { type: 'idle-timeout' });
      const e = decide(track, { type: 'IDLE_TIMEOUT' }, track.episodeAfter);
      if (e) return e;
    }
    // A native line: the binding keeps it as it is (rule 1 before any answer to a resume).
    emit(track, { type: 'disconnect' });
    return decide(track, { type: 'DISCONNECT' }, track.episodeAfter);
  };

  async function* follow(
    params: TaskStreamParams,
    answer: AsyncIterable<TaskStreamItem>,
  ): AsyncGenerator<TaskEvent, void, undefined> {
    const track = trackOf(params.taskId);
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
      const e = call(track, params.after ?? null);
      if (e) throw e;
      for (;;) {
        let next: Awaited<ReturnType<typeof nextOf>>;
        try {
          next = await nextOf(track, it);
        } catch (err) {
          throw broke(track, 'disconnect') ?? err;
        }
        if (next === 'budget') throw budgetRunsOut(track) ?? new Error('proof budget ran out');
        if (next === 'idle') {
          throw (
            broke(track, 'idle-timeout') ??
            new Error(`taskStreamGuard: no message for ${idleTimeoutMs} ms (idleTimeoutMs)`)
          );
        }
        if (next.done) {
          // The answer ended without its result: a break. Call again with the cursor.
          ended = true;
          const error = broke(track, 'disconnect');
          if (error) throw error;
          return;
        }
        for (const fact of factsOf(next.value)) {
          const r = record(track, fact);
          if (r.error) throw r.error;
          const own = fact['taskId'] === track.taskId;
          const seq = fact['seq'] as number;
          const fresh = track.lastSeq === undefined || seq > track.lastSeq;
          if (
            r.accepted ||
            (mutant === 'forwards-duplicates' && r.dropped) ||
            (track.ignoring && own && fresh)
          ) {
            track.lastSeq = seq;
            yield (next.value.message as { params: TaskEvent }).params;
          }
          if (fact['type'] === 'tasks/result') {
            ended = true;
            return;
          }
          if (fact['type'] === 'tasks/error') {
            const err = (fact['error'] ?? {}) as { code?: unknown; message?: unknown };
            throw new Error(
              `taskStreamGuard: tasks/stream answered ${String(fact['status'])} ${String(err.code ?? '')} ${String(err.message ?? '')}`.trim(),
            );
          }
        }
      }
      // (Every exit from the loop is a return or a throw.)
    } catch (e) {
      ended = true;
      throw e;
    } finally {
      track.busy = false;
      if (!ended && !track.failure && tracks.get(track.taskId) === track) {
        // The application stopped reading before the stream ended: it cut the connection.
        emit(track, { type: 'disconnect' });
        decide(track, { type: 'DISCONNECT' }, track.episodeAfter);
      }
      void it.return?.()?.catch(() => {});
    }
  }

  return {
    follow,
    async *stream(fetchFn, url, taskId, init = {}) {
      const after = tracks.get(taskId)?.lastSeq;
      const abort = new AbortController();
      // The caller's signal ends the call; leaving the loop early aborts it too.
      const { signal, ...rest } = init;
      const forward = () => abort.abort(signal!.reason);
      if (signal?.aborted) forward();
      else signal?.addEventListener('abort', forward, { once: true });
      const params: TaskStreamParams = after === undefined ? { taskId } : { taskId, after };
      try {
        yield* follow(
          params,
          fetchTaskStream(fetchFn, url, params, { ...rest, signal: abort.signal }),
        );
      } finally {
        signal?.removeEventListener('abort', forward);
        abort.abort();
      }
    },
    cursor: (taskId) => tracks.get(taskId)?.lastSeq,
    forget(taskId) {
      const track = tracks.get(taskId);
      if (!track) return;
      clearTimeout(track.budget);
      tracks.delete(taskId);
    },
  };
}
