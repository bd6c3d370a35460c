/**
 * Deliberately wrong task-stream bindings: each flips one named rule of SEP_2694_RULES
 * (model/bindings/mcp-tasks.ts), the way a client of SEP-2694 could get it wrong. The corpus of
 * task traces (properties/corpus/tasks-*) kills each (properties/trace/tasks-binding.test.ts).
 */
import type { Binding } from '../bindings/binding.js';
import type { ClientBehaviour } from '../world/client.js';
import type { Subject } from '../world/property.js';
import { SEP_2694_RULES, tasksBinding, type TasksRules } from '../bindings/mcp-tasks.js';

/** One mutant of a binding. */
export interface BindingMutant {
  /** Short stable name, used in test names. */
  name: string;
  /** What is wrong with it, in one sentence. */
  description: string;
  /** The rule it flips. */
  rules: TasksRules;
  binding: Binding;
  /**
   * What runs in the task-stream world (`verify --binding mcp-tasks`): the mutant binding in
   * front of the model's machine, with the client behaviour that reaches the flipped rule.
   */
  subject: Subject;
}

function mutant(
  name: string,
  description: string,
  flip: Partial<TasksRules>,
  behaviour?: Partial<ClientBehaviour>,
): BindingMutant {
  const rules = { ...SEP_2694_RULES, ...flip };
  const binding = tasksBinding(rules);
  return {
    name,
    description,
    rules,
    binding,
    subject: behaviour === undefined ? { binding } : { binding, behaviour },
  };
}

/** The task-stream binding mutants. */
export const BINDING_MUTANTS: readonly BindingMutant[] = [
  mutant(
    'tasks-410-is-session-lost',
    'classifies an error answer on its HTTP status first: events_gone carried as 410 reads as session-lost (rule 2), so the client re-initializes and loses a live task',
    { classifyOn: 'status' },
  ),
  mutant(
    'tasks-duplicate-is-rewind',
    'does not tolerate duplicates: a replayed seq at or below the cursor goes to the machine as an event and fails the resume as a rewind',
    { duplicate: 'forward' },
  ),
  mutant(
    'tasks-duplicate-proves',
    "takes a duplicate as the cursor's successor: a counter restarted under the same task id proves the resume",
    { duplicate: 'proof' },
  ),
  mutant(
    'tasks-missing-after-opens',
    'reads a call without after, once events were delivered, as a fresh stream instead of a resume from the last seq seen: what it has comes again and is passed on twice',
    { missingAfter: 'open' },
    // The model's client always sends its after; this rule is reached by one that does not
    // (the real binding judges that client's calls from the last seq it saw).
    { omitsCursor: true },
  ),
];

/**
 * Binding mutants that only recorded traces reach: the task-stream world's client neither
 * recovers twice without `after` nor meets a receiver with a snapshot/live seam. The task corpus
 * kills each (properties/trace/tasks-binding.test.ts, "corpus-only binding mutants").
 */
export const CORPUS_BINDING_MUTANTS: readonly BindingMutant[] = [
  mutant(
    'tasks-seam-duplicate-is-break',
    'takes a seam duplicate (on the answer to a resume, a seq sent again after later ones, as a receiver that replays its log then its live feed does) for seq going back out of order: a break where SEP-2694 says clients MUST tolerate duplicate delivery after reconnect',
    { seam: 'break' },
  ),
  mutant(
    'tasks-recovery-from-earliest-seq',
    'judges a call without after, once an events_gone told earliestSeq, always from earliestSeq - 1: after a first recovery delivered seqs past it, a second call without after reads the next new seq as a skip',
    { knownEnd: 'gone' },
  ),
];
