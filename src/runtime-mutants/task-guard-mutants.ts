/**
 * The task guard's mutant table: each entry is a wrong taskStreamGuard, so that the property
 * suite (properties/runtime/task-guard.test.ts) shows it finds each one. Not exported by
 * `mcp-resumption/runtime` and outside src/runtime/ (the deployable folder): `taskStreamGuard`
 * itself takes no mutant.
 */
import type { WireFact } from '../../model/bindings/index.js';
import { SEP_2694_RULES, tasksBinding } from '../../model/bindings/mcp-tasks.js';
import type { Observation } from '../../model/observations.js';
import type { StreamResumptionError } from '../reference.js';
import type { Escalation } from '../runtime/decision-core.js';
import { TaskGuardRuntime, type Recorded } from '../runtime/task-guard-runtime.js';
import type { Track } from '../runtime/task-guard-track.js';
import {
  guardOver,
  type TaskStreamGuard,
  type TaskStreamGuardOptions,
} from '../runtime/task-stream-guard.js';

/** The name of a task guard mutant. */
export type TaskGuardMutantName =
  | 'accepts-skip'
  | 'forwards-duplicates'
  | 'gone-410-is-session-lost'
  | 'accepts-missing-after'
  | 'budget-per-poll'
  | 'cursor-follows-duplicates';

/** One task guard mutant and what it gets wrong. */
export interface TaskGuardMutant {
  name: TaskGuardMutantName;
  description: string;
}

/** Every task guard mutant. */
export const TASK_GUARD_MUTANTS: readonly TaskGuardMutant[] = [
  {
    name: 'accepts-skip',
    description: 'ignores the machine when it fails a resume for a skip, and hands the events on',
  },
  {
    name: 'forwards-duplicates',
    description: 'hands a duplicate (seq at or below the cursor) to the application',
  },
  {
    name: 'gone-410-is-session-lost',
    description:
      'classifies an answer on its HTTP status first: events_gone as 410 is session-lost',
  },
  {
    name: 'accepts-missing-after',
    description: 'takes a call without after, once events were delivered, for a fresh stream',
  },
  {
    name: 'budget-per-poll',
    description:
      'gives every poll of an episode (an empty resume, called again with the same after) a fresh proof budget',
  },
  {
    name: 'cursor-follows-duplicates',
    description:
      'moves the cursor to a dropped duplicate: the next call sends an after below what was handed on, and events come twice',
  },
];

// Each mutant is a subclass of the guard's runtime that overrides one small method of it (two
// for accepts-skip), or the runtime itself with the binding's rules flipped at one choice.

/** An event the machine judged, and what it came to. */
type Judged = Extract<Recorded, { error: null }>;

/** `accepts-skip`: a skip fails nothing, and every later event of the task is handed on. */
class AcceptsSkip extends TaskGuardRuntime {
  /** Tasks whose skip was let through: later events follow it. */
  private readonly ignoring = new WeakSet<Track>();

  protected override escalate(
    track: Track,
    o: Observation,
    e: Escalation,
    note: never,
  ): StreamResumptionError | null {
    if (e.code !== 'skip') return super.escalate(track, o, e, note);
    this.ignoring.add(track);
    return null;
  }

  protected override handsOn(track: Track, fact: WireFact, r: Judged): boolean {
    const seq = fact['seq'] as number;
    const fresh = track.lastSeq === undefined || seq > track.lastSeq;
    const own = fact['taskId'] === track.taskId;
    return super.handsOn(track, fact, r) || (this.ignoring.has(track) && own && fresh);
  }
}

/** `forwards-duplicates`: a duplicate the binding dropped is handed on. */
class ForwardsDuplicates extends TaskGuardRuntime {
  protected override handsOn(track: Track, fact: WireFact, r: Judged): boolean {
    return super.handsOn(track, fact, r) || r.dropped;
  }
}

/** `cursor-follows-duplicates`: the cursor moves to a duplicate of the task's that was dropped. */
class CursorFollowsDuplicates extends TaskGuardRuntime {
  protected override handsOn(track: Track, fact: WireFact, r: Judged): boolean {
    if (r.dropped && fact['taskId'] === track.taskId) track.lastSeq = fact['seq'] as number;
    return super.handsOn(track, fact, r);
  }
}

/** `budget-per-poll`: every call starts its episode's budget anew, a poll's too. */
class BudgetPerPoll extends TaskGuardRuntime {
  protected override keepsBudget(): boolean {
    return false;
  }
}

/** Each mutant's runtime. */
const RUNTIMES: Record<TaskGuardMutantName, (o: TaskStreamGuardOptions) => TaskGuardRuntime> = {
  'accepts-skip': (o) => new AcceptsSkip(o),
  'forwards-duplicates': (o) => new ForwardsDuplicates(o),
  'gone-410-is-session-lost': (o) =>
    new TaskGuardRuntime(o, { ...SEP_2694_RULES, classifyOn: 'status' }),
  'accepts-missing-after': (o) =>
    new TaskGuardRuntime(o, { ...SEP_2694_RULES, missingAfter: 'open' }),
  'budget-per-poll': (o) => new BudgetPerPoll(o),
  'cursor-follows-duplicates': (o) => new CursorFollowsDuplicates(o),
};

/** `taskStreamGuard` with the mutant `name`: for the property suite only. */
export function mutantTaskGuard(
  options: TaskStreamGuardOptions,
  name: TaskGuardMutantName,
): TaskStreamGuard {
  return guardOver(RUNTIMES[name](options));
}

/**
 * A task guard whose every task is read by the binding mutant `tasks-recovery-from-earliest-seq`
 * (model/mutants/binding-mutants.ts): a call without `after`, once an `events_gone` told
 * `earliestSeq`, is judged from `earliestSeq - 1` even after later seqs were handed on. Built
 * as a subclass of the runtime, outside src/runtime/: the guard has no switch for it.
 */
class RecoversFromEarliestSeq extends TaskGuardRuntime {
  private readonly mutantBinding = tasksBinding({ ...SEP_2694_RULES, knownEnd: 'gone' });

  override trackOf(taskId: string): Track {
    const fresh = !this.tracks.has(taskId);
    const track = super.trackOf(taskId);
    if (fresh) track.translator = this.mutantBinding.translator!();
    return track;
  }
}

/** `taskStreamGuard` that judges every recovery without `after` from `earliestSeq - 1`. */
export function recoversFromEarliestSeqGuard(options: TaskStreamGuardOptions): TaskStreamGuard {
  return guardOver(new RecoversFromEarliestSeq(options));
}
