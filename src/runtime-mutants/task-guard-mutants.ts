/**
 * The task guard's mutant table: each entry is a wrong taskStreamGuard, so that the property
 * suite (properties/runtime/task-guard.test.ts) shows it finds each one. Not exported by
 * `mcp-resumption/runtime` and outside src/runtime/ (the deployable folder): `taskStreamGuard`
 * itself takes no mutant.
 */
import { SEP_2694_RULES, tasksBinding } from '../../model/bindings/mcp-tasks.js';
import { TaskGuardRuntime } from '../runtime/task-guard-runtime.js';
import type { Track } from '../runtime/task-guard-track.js';
import {
  guardOver,
  taskGuardWith,
  type TaskGuardMutantName,
  type TaskStreamGuard,
  type TaskStreamGuardOptions,
} from '../runtime/task-stream-guard.js';

export type { TaskGuardMutantName } from '../runtime/task-stream-guard.js';

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

/** `taskStreamGuard` with the mutant `name`: for the property suite only. */
export function mutantTaskGuard(
  options: TaskStreamGuardOptions,
  name: TaskGuardMutantName,
): TaskStreamGuard {
  return taskGuardWith(options, name);
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
  return guardOver(new RecoversFromEarliestSeq(options, undefined));
}
