/**
 * Deliberately wrong bindings: each task-stream mutant flips one named rule of SEP_2694_RULES
 * (model/bindings/mcp-tasks.ts), the way a client of SEP-2694 could get it wrong; each A2A
 * mutant one rule of `a2aRules` (model/bindings/a2a.ts). The corpus of
 * task traces (properties/corpus/tasks-*) kills each (properties/trace/tasks-binding.test.ts).
 */
import type { Binding } from '../bindings/binding.js';
import type { ClientBehaviour } from '../world/client.js';
import type { Subject } from '../world/property.js';
import { SEP_2694_RULES, tasksBinding, type TasksRules } from '../bindings/mcp-tasks.js';
import { a2aBinding, a2aRules, type A2aRules } from '../bindings/a2a.js';

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

/** One mutant of the A2A binding: it flips one named rule of {@link a2aRules} in one era. */
export interface A2aBindingMutant {
  /** Short stable name, used in test names. */
  name: string;
  /** What is wrong with it, in one sentence. */
  description: string;
  /** The rules it runs with (the era's, one flipped). */
  rules: A2aRules;
  binding: Binding;
}

function a2aMutant(name: string, description: string, flip: Partial<A2aRules>): A2aBindingMutant {
  const rules = { ...a2aRules('dev-1.1'), ...flip };
  return { name, description, rules, binding: a2aBinding(rules) };
}

/**
 * The A2A binding mutants, each in era `dev-1.1` (where a client can prove anything). The A2A
 * corpus (properties/corpus/a2a-*) kills each (properties/trace/a2a-binding.test.ts).
 */
export const A2A_BINDING_MUTANTS: readonly A2aBindingMutant[] = [
  a2aMutant(
    'a2a-error-on-http-status',
    'classifies an error answer on its HTTP status first: the JS SDK sends TaskNotFoundError (-32001) with HTTP 200, which then reads as an empty 200 stream, a poll, not a lost task',
    { classifyOn: 'status' },
  ),
  a2aMutant(
    'a2a-duplicate-is-rewind',
    'does not drop an update whose generation is at or below the cursor: the repeat the live tap sends after a snapshot that folded it breaks the stream',
    { duplicate: 'forward' },
  ),
  a2aMutant(
    'stops-on-duplicate-generation',
    "follows the dev-1.1 fallback literally: two identical consecutive generations (the snapshot and the tap's repeat of it) make it stop using generation for the interaction, so the next gap goes unseen",
    { sameGeneration: 'stop' },
  ),
  a2aMutant(
    'a2a-snapshot-ignored',
    'takes the snapshot that answers SubscribeToTask as a bare 200: a snapshot that already folded the update the tap then sends again lets that repeat prove the resume (the seam duplicate counted twice)',
    { snapshot: 'ignored' },
  ),
];
